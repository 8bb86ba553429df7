#!/usr/bin/env python3
"""pyxform (the XLSForm converter ODK uses) as the independent side of MI's XLSForm tests.

  xlsform_oracle.py make KIND OUT.xlsx     writes a test XLSForm with openpyxl (and its CSV beside it)
  xlsform_oracle.py pyxform FILE.xlsx LANG prints what pyxform's xls2json reads, question by question,
                                           as [{"path", "kind", "type", "label", ...}] (labels in LANG)
  xlsform_oracle.py bench OUT.xlsx         writes the benchmark's 2,000-row XLSForm
  xlsform_oracle.py time FILE.xlsx RUNS    median seconds of pyxform's xls2json over RUNS runs: {"median"}

KINDs: full (every type and column, groups, nested repeats, two languages, a cascading select
from a CSV, or_other) and untidy (stray spaces and case in headers, legacy spellings, typographic
quotes, numeric choice names, empty rows, sheet names in capitals).
"""
import csv
import datetime
import json
import os
import re
import statistics
import sys
import time

import openpyxl
from pyxform.xls2json import parse_file_to_json

SURVEY_FULL = [
    ["type", "name", "label::English (en)", "label::Español (es)", "hint::English (en)", "required", "required_message::English (en)",
     "relevant", "constraint", "constraint_message::English (en)", "calculation", "default", "read_only", "choice_filter",
     "repeat_count", "appearance", "parameters", "media::image::English (en)"],
    ["start", "start"],
    ["end", "end"],
    ["today", "today"],
    ["deviceid", "deviceid"],
    ["username", "username"],
    ["text", "site", "Site", "Sitio", "As on the gate", "yes", "Say which site"],
    ["integer", "pumps", "Pumps", "Bombas", None, None, None, None, ". >= 0 and . <= 20", "From 0 to 20", None, "1"],
    ["decimal", "ratio", "Ratio", "Razón", None, "${pumps} > 2", None, "${pumps} > 0"],
    ["select_one yn", "ok", "All fine?", "¿Todo bien?", None, None, None, None, None, None, None, None, None, None, None, "minimal"],
    ["select_multiple faults", "faults", "Faults", "Fallas", None, None, None, "${ok} = 'no'"],
    ["select_one region", "region", "Region", "Región"],
    ["select_one_from_file districts.csv", "district", "District", "Distrito", None, None, None, None, None, None, None, None, None,
     "region = ${region}"],
    ["select_one yn or_other", "seen", "Seen before?", "¿Visto antes?"],
    ["date", "day", "Day", "Día"],
    ["time", "at", "At", "A las"],
    ["dateTime", "when", "When", "Cuándo"],
    ["range", "level", "Level", "Nivel", None, None, None, None, None, None, None, None, None, None, None, None, "start=0 end=10 step=2"],
    ["note", "info", "Read this", "Lea esto", None, None, None, None, None, None, None, None, None, None, None, None, None, "pump.png"],
    ["geopoint", "where", "Where", "Dónde"],
    ["barcode", "tag", "Tag", "Etiqueta"],
    ["image", "shot", "Photo", "Foto"],
    ["audio", "sound", "Sound", "Sonido"],
    ["video", "clip", "Clip", "Vídeo"],
    ["acknowledge", "agree", "I checked", "Revisé"],
    ["calculate", "double", None, None, None, None, None, None, None, None, "${pumps} * 2"],
    ["text", "fixed", "Fixed", "Fijo", None, None, None, None, None, None, None, "none", "yes"],
    ["begin group", "more", "More", "Más", None, None, None, "${ok} = 'no'"],
    ["text", "why", "Why?", "¿Por qué?"],
    ["begin repeat", "pump", "Pump", "Bomba", None, None, None, None, None, None, None, None, None, None, "${pumps}"],
    ["decimal", "amps", "Amps", "Amperios", None, "true()"],
    ["begin_repeat", "seal", "Seal", "Sello"],
    ["acknowledge", "worn", "Worn?", "¿Gastado?"],
    ["end_repeat"],
    ["end repeat"],
    ["end group"],
]

CHOICES_FULL = [
    ["list_name", "name", "label::English (en)", "label::Español (es)"],
    ["yn", "yes", "Yes", "Sí"],
    ["yn", "no", "No", "No"],
    ["faults", "seal", "Seal", "Sello"],
    ["faults", "bearing", "Bearing", "Rodamiento"],
    ["faults", "casing", "Casing", "Carcasa"],
    ["region", "n", "North", "Norte"],
    ["region", "s", "South", "Sur"],
]

DISTRICTS = [["name", "label", "region"], ["n1", "North 1", "n"], ["n2", "North 2", "n"], ["s1", "South 1", "s"]]

SURVEY_UNTIDY = [
    ["  Type ", "NAME", "label:English", " Relevant", "Constraint  Message", "constraint"],
    ["select one from colour", "colour", "Colour"],
    [],
    ["integer", "count", "How many", "${colour} = ‘1’", "Positive", ". > 0"],
    ["text", "because", "Because", "${count} > 1 and ${colour} != “2”"],
    [None, None, None],
    ["select_multiple colour", "colours", "Colours"],
]

CHOICES_UNTIDY = [
    ["list name", "Name", "label:English"],
    ["colour", 1, "Red"],
    ["colour", 2, "Blue"],
]


def write(path, sheets):
    workbook = openpyxl.Workbook()
    workbook.remove(workbook.active)
    for name, rows in sheets:
        sheet = workbook.create_sheet(name)
        for row in rows:
            sheet.append(row)
    workbook.save(path)


def make(kind, path):
    folder = os.path.dirname(os.path.abspath(path))
    if kind == "full":
        write(path, [("survey", SURVEY_FULL), ("choices", CHOICES_FULL),
                     ("settings", [["form_id", "version", "form_title", "default_language"],
                                   ["pumps_check", datetime.datetime(2026, 11, 26, 9, 45), "Pump check", "English (en)"]])])
        with open(os.path.join(folder, "districts.csv"), "w", newline="", encoding="utf-8") as out:
            csv.writer(out).writerows(DISTRICTS)
    elif kind == "untidy":
        write(path, [("Survey", SURVEY_UNTIDY), ("CHOICES", CHOICES_UNTIDY), ("Settings", [["form_title"], ["Untidy"]])])
    else:
        raise SystemExit(f"unknown kind {kind}")


def bench(path, languages=("English (en)", "Español (es)", "Kiswahili (sw)")):
    """2,000 survey rows: 200 select_one questions over 200 lists of 5 choices, groups of 40 and
    a repeat in every group, in three languages."""
    header = ["type", "name"] + [f"label::{l}" for l in languages] + [f"hint::{l}" for l in languages] + ["relevant", "constraint", "required"]
    survey = [header]
    choices = [["list_name", "name"] + [f"label::{l}" for l in languages]]
    for lst in range(200):
        for c in range(5):
            choices.append([f"list{lst}", f"c{c}"] + [f"Choice {c} of {lst} ({l[:2]})" for l in languages])
    rows = 0
    question = 0
    group = 0
    while rows < 2000:
        survey.append(["begin group", f"g{group}"] + [f"Group {group} ({l[:2]})" for l in languages] + [None] * len(languages)
                      + ([f"${{q{question - 1}}} != ''"] if question else [None]))
        rows += 1
        for i in range(40):
            if i == 20:
                survey.append(["begin repeat", f"r{group}"] + [f"Repeat {group}" for _ in languages])
                rows += 1
            kind = ["text", "integer", "decimal", f"select_one list{question % 200}"][question % 4]
            constraint = ". >= 0" if kind in ("integer", "decimal") else None
            survey.append([kind, f"q{question}"] + [f"Question {question} ({l[:2]})" for l in languages]
                          + [f"Hint {question} ({l[:2]})" for l in languages] + [None, constraint, "yes" if question % 3 == 0 else None])
            question += 1
            rows += 1
        survey.append(["end repeat"])
        survey.append(["end group"])
        rows += 2
        group += 1
    write(path, [("survey", survey), ("choices", choices),
                 ("settings", [["form_id", "version", "default_language"], ["bench", 3, languages[0]]])])


REFERENCE = re.compile(r"(?:\.\./|/[A-Za-z_][\w.-]*/)+([A-Za-z_][\w.-]*)")


def expression(text):
    """pyxform writes or_other's relevance with a relative path (`../seen`); MI with ${seen}."""
    if text is None:
        return None
    return REFERENCE.sub(lambda m: "${" + m.group(1) + "}", str(text))


DEFAULT_LANGUAGE = "default"


def text(value, language):
    """A text in LANGUAGE; a language without one reads the default language's (as MI shows it)."""
    if isinstance(value, dict):
        for key in (language, DEFAULT_LANGUAGE, "default"):
            if value.get(key) not in (None, ""):
                return value[key]
        return None
    return value


def flatten(children, folder, language, parent=""):
    items = []
    for child in children:
        kind = child["type"]
        name = child["name"]
        if kind in ("start", "end", "today", "deviceid", "username") or (kind == "group" and name == "meta"):
            continue
        bind = child.get("bind", {})
        control = child.get("control", {})
        item = {"path": parent + name, "type": kind}
        for key, value in (("label", text(child.get("label"), language)), ("hint", text(child.get("hint"), language)),
                           ("relevant", expression(bind.get("relevant"))), ("constraint", bind.get("constraint")),
                           ("constraint_message", text(bind.get("jr:constraintMsg"), language)),
                           ("required", bind.get("required")), ("required_message", text(bind.get("jr:requiredMsg"), language)),
                           ("calculation", bind.get("calculate")), ("default", child.get("default")),
                           ("read_only", bind.get("readonly")), ("choice_filter", child.get("choice_filter")),
                           ("repeat_count", control.get("jr:count")),
                           ("image", text(child.get("media", {}).get("image"), language))):
            if value not in (None, ""):
                item[key] = str(value)
        if "required" in item:
            item["required"] = {"yes": "true", "true()": "true", "no": "false", "false()": "false"}.get(item["required"], item["required"])
        if "read_only" in item:
            item["read_only"] = {"yes": "true", "true()": "true"}.get(item["read_only"], item["read_only"])
        if kind == "range":
            parameters = child.get("parameters", {})
            item["parameters"] = " ".join(f"{k}={float(parameters[k]):g}" for k in ("start", "end", "step") if k in parameters)
        if kind in ("select one", "select all that apply"):
            if "choices" in child:
                choices = [(str(c["name"]), str(text(c.get("label"), language))) for c in child["choices"]]
            else:
                with open(os.path.join(folder, child["itemset"]), newline="", encoding="utf-8") as source:
                    choices = [(row["name"], row["label"]) for row in csv.DictReader(source)]
            item["choices"] = "|".join(f"{n}={l}" for n, l in choices)
        items.append(item)
        if kind in ("group", "repeat"):
            items += flatten(child.get("children", []), folder, language, parent + name + "/")
    return items


def oracle(path, language):
    global DEFAULT_LANGUAGE
    survey = parse_file_to_json(path)
    DEFAULT_LANGUAGE = survey.get("default_language") or "default"
    folder = os.path.dirname(os.path.abspath(path))
    return {"id": survey.get("id_string"), "title": survey.get("title"), "version": survey.get("version"),
            "items": flatten(survey["children"], folder, language)}


def main():
    command = sys.argv[1]
    if command == "make":
        make(sys.argv[2], sys.argv[3])
    elif command == "bench":
        bench(sys.argv[2])
    elif command == "pyxform":
        print(json.dumps(oracle(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "default"), ensure_ascii=False))
    elif command == "time":
        runs = int(sys.argv[3])
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            parse_file_to_json(sys.argv[2])
            times.append(time.perf_counter() - start)
        print(json.dumps({"median": statistics.median(times)}))
    else:
        raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    main()
