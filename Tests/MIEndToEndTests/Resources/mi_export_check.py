"""Checks an `mi export` zip independently of MI, with Python's zipfile and csv and LibreOffice.

Usage: mi_export_check.py EXPECTED.json EXPORT.zip WORKDIR

EXPECTED.json: {"template": id, "header": [...], "forms": [form ids], "last": the latest form's id,
"media": {"<form id>/<file>": "/path/of/the/original"}, "cells": [[form id, column, value]],
"libreoffice": "Ñuñoa"}. Prints OK, or one problem per line (exit 1).
"""
import csv
import io
import json
import os
import subprocess
import sys
import time
import zipfile

expected = json.load(open(sys.argv[1], encoding="utf-8"))
archive_path, work = sys.argv[2], sys.argv[3]
problems = []


def same(got, want, what):
    if got != want:
        problems.append(f"{what}: got {got!r}, expected {want!r}")


with zipfile.ZipFile(archive_path) as archive:
    same(archive.testzip(), None, "first bad entry (testzip)")
    names = archive.namelist()
    csv_name = expected["template"] + ".csv"
    media_names = sorted("media/" + key for key in expected["media"])
    same(names[0] if names else None, csv_name, "first entry")
    same(sorted(names[1:]), media_names, "media entries")
    for info in archive.infolist():
        same(info.compress_type, zipfile.ZIP_STORED, f"{info.filename} stored")
    for key, original in expected["media"].items():
        with open(original, "rb") as file:
            same(archive.read("media/" + key) == file.read(), True, f"media/{key} byte-identical")
    raw = archive.read(csv_name)

same(raw[:3], b"\xef\xbb\xbf", "byte-order mark")
text = raw.decode("utf-8-sig")
rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
same(rows[0] if rows else None, expected["header"], "header")
body = rows[1:]
same(len(body), len(expected["forms"]), "rows")
for row in body:
    same(len(row), len(expected["header"]), f"columns of row {row[:1]}")
key = expected["header"].index("KEY")
same(sorted(row[key] for row in body), sorted(expected["forms"]), "KEY column: one row per form")
dates = [row[0] for row in body]
same(dates, sorted(dates), "rows in submission order (SubmissionDate)")
same(all(len(date) >= 20 and date.endswith("Z") for date in dates), True, f"SubmissionDate in UTC: {dates}")
same(body[-1][key] if body else None, expected["last"], "the latest submission last")
by_id = {row[key]: dict(zip(expected["header"], row)) for row in body}
for form, column, value in expected["cells"]:
    same(by_id.get(form, {}).get(column), value, f"{column} of {form}")
# Records end in CRLF (RFC 4180), the header's included.
same(raw.endswith(b"\r\n"), True, "CRLF after the last record")
same(raw.index(b"\n") - 1 == raw.index(b"\r\n"), True, "CRLF after the header")

# LibreOffice reads the CSV and writes xlsx. Its headless import ignores a byte-order mark and
# reads "System" (Windows-1252) unless told the character set, so it is told UTF-8 (76), as a
# user picks it in the import dialog; Excel goes by the BOM. The BOM must then be gone from
# the first header cell.
csv_file = os.path.join(work, csv_name)
with open(csv_file, "wb") as file:
    file.write(raw)
profile = os.path.join(work, "libreoffice-profile")
out = os.path.join(work, "xlsx")
started = time.monotonic()
converted = subprocess.run(
    ["libreoffice", f"-env:UserInstallation=file://{profile}", "--headless", "--infilter=CSV:44,34,76",
     "--convert-to", "xlsx", "--outdir", out, csv_file],
    capture_output=True, text=True, timeout=180)
print(f"libreoffice took {time.monotonic() - started:.1f} s", file=sys.stderr)
xlsx = os.path.join(out, expected["template"] + ".xlsx")
if converted.returncode != 0 or not os.path.exists(xlsx):
    problems.append(f"libreoffice failed ({converted.returncode}): {converted.stdout} {converted.stderr}")
else:
    with zipfile.ZipFile(xlsx) as book:
        shared = book.read("xl/sharedStrings.xml").decode("utf-8")
    word = expected["libreoffice"]
    same(word in shared, True, f"{word} in the xlsx's shared strings")
    same('>SubmissionDate<' in shared, True, "first header cell without the byte-order mark")
    for mojibake in ("Ã", "Â", "\ufffd"):
        same(mojibake in shared, False, f"mojibake {mojibake!r} in the xlsx")

print("\n".join(problems) if problems else "OK")
sys.exit(1 if problems else 0)
