#!/usr/bin/env python3
"""Writes the form-logic benchmark's templates and answers (issue 24 item 8) into a folder:

  bench-logic.json   1,000 questions: 995 at the top level and a repeat of 5 questions asked
                     200 times (repeatCount 200), with 500 relevance or constraint expressions
                     (and the calculations they lead to: a running check and a sum over the
                     repeat).
  bench-plain.json   the same template with every logic key removed (same questions, same
                     repeat of 200 instances).
  answers-logic.json / answers-plain.json   an answer for every question asked: 995 + 1,000.

    python3 scripts/make-logic-bench.py OUT_DIR
"""
import json, sys

LOGIC_KEYS = {"relevant", "constraint", "constraintMessage", "required", "requiredMessage", "calculation", "default", "readOnly", "choiceFilter"}
TOP, REPEATED, INSTANCES, EXPRESSIONS = 995, 5, 200, 500


def questions():
    top, expressions = [], 0
    for i in range(1, TOP + 1):
        kind = ("trueFalse", "numeric", "shortAnswer", "multipleChoice", "numeric")[i % 5]
        q = {"id": f"q{i}", "text": f"Question {i}", "type": kind}
        if kind == "multipleChoice":
            q["options"] = ["none", "minor", "major"]
            q["Max-answers"] = 3
        if expressions < EXPRESSIONS - 10 and i > 5:
            if kind == "numeric":
                q["constraint"] = ". >= 0 and . <= 1000"
                q["constraintMessage"] = "From 0 to 1000"
            elif kind == "multipleChoice":
                q["constraint"] = "not(selected(., 'none') and count-selected(.) > 1)"
            else:
                # Relevant when an earlier yes/no question says yes (every one is answered yes).
                q["relevant"] = f"${{q{5 * ((i - 1) // 5)}}} = 'true' or ${{q{i - 1}}} != 'x'"
            expressions += 1
        top.append(q)
    repeated = [
        {"id": "amps", "type": "numeric", "text": "Current (A)", "constraint": ". <= 40"},
        {"id": "volts", "type": "numeric", "text": "Voltage (V)", "constraint": ". >= 100 and . <= 500"},
        {"id": "running", "type": "trueFalse", "text": "Running?"},
        {"id": "note", "type": "shortAnswer", "text": "Why stopped?", "relevant": "${running} = 'false'"},
        {"id": "kw", "type": "calculate", "text": "Power (kW)", "calculation": "${amps} * ${volts} div 1000"},
    ]
    expressions += 3
    top.append({"id": "pumps", "type": "repeat", "text": "Pump", "repeatCount": INSTANCES, "questions": repeated})
    # The rest of the 500: relevance on the last questions from the repeat's total.
    for q in reversed(top[:TOP]):
        if expressions == EXPRESSIONS:
            break
        if "relevant" not in q and "constraint" not in q:
            q["relevant"] = "sum(${kw}) >= 0"
            expressions += 1
    return top


def template(tid, strip):
    qs = questions()
    def clean(q):
        q = {k: v for k, v in q.items() if not (strip and k in LOGIC_KEYS)}
        if "questions" in q:
            q["questions"] = [clean(x) for x in q["questions"]]
            if strip:
                # A calculate question without its calculation is not a template: a number instead.
                for x in q["questions"]:
                    if x["type"] == "calculate":
                        x["type"] = "numeric"
        return q
    return {"id": tid, "title": f"Benchmark ({tid})", "version": 1, "questions": [clean(q) for q in qs]}


def answers(t):
    out = {}
    for q in t["questions"]:
        if q["type"] == "repeat":
            for n in range(1, INSTANCES + 1):
                for x in q["questions"]:
                    key = f"{q['id']}[{n}]/{x['id']}"
                    value = {"amps": 10 + n % 20, "volts": 230, "running": True, "kw": 2.3, "note": "running"}.get(x["id"])
                    # Asked only when the pump is stopped: the plain form (no relevance) asks it.
                    if x["type"] == "calculate" or (x["id"] == "note" and "relevant" in x):
                        continue
                    out[key] = value
            continue
        out[q["id"]] = {"trueFalse": True, "numeric": 7, "shortAnswer": "fine", "multipleChoice": ["minor"]}[q["type"]]
    return out


def main():
    out = sys.argv[1]
    for tid, strip in (("bench-logic", False), ("bench-plain", True)):
        t = template(tid, strip)
        json.dump(t, open(f"{out}/{tid}.json", "w"), indent=1)
        json.dump(answers(t), open(f"{out}/answers-{tid.split('-')[1]}.json", "w"))
    logic = template("bench-logic", False)
    count = sum(1 for q in logic["questions"] for k in ("relevant", "constraint") if k in q)
    count += sum(1 for q in logic["questions"][-1]["questions"] if "relevant" in q or "constraint" in q)
    print(f"{len(logic['questions']) - 1 + len(logic['questions'][-1]['questions'])} questions, {count} relevance or constraint expressions", file=sys.stderr)


main()
