#!/usr/bin/env python3
"""Builds a benchmark store of N forms spread over U users by cloning real forms that `mi`
itself wrote (so the files have exactly mi's format), each with a new id, name, user and
creation time within the expiry window.

With --completed (statistics and exports): every form is completed, submitted on one of the last
60 days, and its answers are drawn anew from its template copy (options, numbers within their
bounds, table cells, short answers from a small vocabulary, a comment instead of an answer now
and then, a photo on some), so statistics have something to count."""
import json, os, random, re, shutil, sys, uuid
from datetime import datetime, timedelta, timezone

completed_only = "--completed" in sys.argv
arguments = [a for a in sys.argv[1:] if a != "--completed"]
seed_docs, target_docs, forms, users = arguments[0], arguments[1], int(arguments[2]), int(arguments[3])
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
WORDS = ["all good", "Oil topped up", "noisy bearing", "Guard replaced", "see photo", "Leak at flange", "ok",
         "Ñuñoa depot", "Check again next month", "painted"]


def number_text(value):
    return str(int(value)) if float(value).is_integer() else repr(round(value, 2))


def draw_answer(question, index):
    """A valid answer (or a comment) to one question of the template copy."""
    kind = question["type"]
    answer = {"media": []}
    if rng.random() < 0.05:
        answer["comment"] = rng.choice(WORDS)
        return answer
    if kind == "trueFalse":
        answer["value"] = rng.random() < 0.8
    elif kind == "multipleChoice":
        options, most = question["options"], question.get("Max-answers", question.get("maxAnswers", 1))
        count = 1 if most == 1 else rng.randint(1, most or len(options))
        answer["value"] = sorted(rng.sample(options, count), key=options.index)
    elif kind == "numeric":
        low, high = question.get("min", 0), question.get("max", 10000)
        value = rng.triangular(low, high, low + (high - low) * 0.4)
        answer["value"] = round(value) if question.get("integer") else round(value, 2)
    elif kind == "shortAnswer":
        answer["value"] = rng.choice(WORDS)
    elif kind == "table":
        no_cells = {tuple(cell) for cell in question.get("noCells", [])}
        answer["value"] = [[None if (r, c) in no_cells else number_text(rng.uniform(20, 90) if c == 0 else rng.uniform(0.5, 7))
                            for c in range(len(question["columns"]))] for r in range(len(question["rows"]))]
    if rng.random() < 0.2:
        answer["media"] = ["Qid%d(1).jpg" % index]
    return answer


def completed_copy(text):
    """The form with new answers, completed and submitted on one of the last 60 days."""
    start = text.index('"answers":')
    answers_end = json.JSONDecoder().raw_decode(text, start + len('"answers":'))[1]
    template_start = text.index('"template":', answers_end)
    template = json.JSONDecoder().raw_decode(text, template_start + len('"template":'))[0]
    answers = {q["id"]: draw_answer(q, i) for i, q in enumerate(template["questions"])}
    text = text[:start] + '"answers":' + json.dumps(answers, ensure_ascii=False, separators=(",", ":"), sort_keys=True) + text[answers_end:]
    submitted = (now - timedelta(days=rng.randint(0, 59), seconds=rng.randint(0, 86399))).strftime("%Y-%m-%dT%H:%M:%SZ")
    text = re.sub(r'"answered":\d+', '"answered":%d' % len(answers), text, count=1)
    text = re.sub(r'"media":\d+,', '"media":%d,' % sum(len(a["media"]) for a in answers.values()), text, count=1)
    if '"submittedAt":' in text[:start]:
        text = re.sub(r'"submittedAt":"[^"]*"', '"submittedAt":"%s"' % submitted, text, count=1)
    else:
        text = text.replace('"status":', '"submittedAt":"%s","status":' % submitted, 1)
    return text, [name for a in answers.values() for name in a["media"]]


for i in range(forms):
    user = "ana" if i % users == 7 else "tech%02d" % (i % users)
    area = "CompletedMIs" if completed_only or i % 4 == 0 else "Users"
    name = "form-%05d" % i
    created = (now - timedelta(hours=rng.randint(1, 24 * 6))).strftime("%Y-%m-%dT%H:%M:%SZ")
    text = rng.choice(seeds)
    text = re.sub(r'"id":"[0-9A-Fa-f-]{36}"', '"id":"%s"' % str(uuid.uuid4()).upper(), text, count=1)
    text = re.sub(r'"name":"[^"]*"', '"name":"%s"' % name, text, count=1)
    text = re.sub(r'"user":"[^"]*"', '"user":"%s"' % user, text, count=1)
    text = re.sub(r'"createdAt":"[^"]*"', '"createdAt":"%s"' % created, text, count=1)
    text = re.sub(r'"status":"[^"]*"', '"status":"%s"' % ("completed" if area == "CompletedMIs" else "incomplete"), text, count=1)
    media = []
    if completed_only:
        text, media = completed_copy(text)
    folder = os.path.join(target_docs, area, user, name)
    os.makedirs(folder)
    with open(os.path.join(folder, "form.json"), "w", encoding="utf-8") as f:
        f.write(text)
    for file in media:
        with open(os.path.join(folder, file), "wb") as f:
            f.write(b"\xff\xd8\xff\xe0 not a real photo")
