#!/usr/bin/env python3
"""Builds a benchmark store of N forms spread over U users by cloning real forms that `mi`
itself wrote (so the files have exactly mi's format), each with a new id, name, user and
creation time within the expiry window."""
import json, os, random, re, shutil, sys, uuid
from datetime import datetime, timedelta, timezone

seed_docs, target_docs, forms, users = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
seeds = []
for root, _, files in os.walk(seed_docs):
    if "form.json" in files:
        seeds.append(open(os.path.join(root, "form.json"), encoding="utf-8").read())
if not seeds:
    sys.exit("no seed forms under " + seed_docs)
shutil.rmtree(target_docs, ignore_errors=True)
shutil.copytree(os.path.join(seed_docs, ".templates"), os.path.join(target_docs, ".templates"))
rng = random.Random(7)
now = datetime.now(timezone.utc)
for i in range(forms):
    user = "ana" if i % users == 7 else "tech%02d" % (i % users)
    area = "CompletedMIs" if i % 4 == 0 else "Users"
    name = "form-%05d" % i
    created = (now - timedelta(hours=rng.randint(1, 24 * 6))).strftime("%Y-%m-%dT%H:%M:%SZ")
    text = rng.choice(seeds)
    text = re.sub(r'"id":"[0-9A-Fa-f-]{36}"', '"id":"%s"' % str(uuid.uuid4()).upper(), text, count=1)
    text = re.sub(r'"name":"[^"]*"', '"name":"%s"' % name, text, count=1)
    text = re.sub(r'"user":"[^"]*"', '"user":"%s"' % user, text, count=1)
    text = re.sub(r'"createdAt":"[^"]*"', '"createdAt":"%s"' % created, text, count=1)
    text = re.sub(r'"status":"[^"]*"', '"status":"%s"' % ("completed" if area == "CompletedMIs" else "incomplete"), text, count=1)
    folder = os.path.join(target_docs, area, user, name)
    os.makedirs(folder)
    with open(os.path.join(folder, "form.json"), "w", encoding="utf-8") as f:
        f.write(text)
