#!/usr/bin/env bash
# Benchmark (issue 24 item 8): form logic's cost. A template of 1,000 questions — 995 at the top
# level and a repeat of 5 asked 200 times — with 500 relevance or constraint expressions
# (scripts/make-logic-bench.py), against the same template with every logic key removed, each
# form answered in full (1,995 answers). Three measurements, each alternating the two forms
# round after round so the load of other work falls on both alike:
#   answer  — `mi answer FORM q7 N` (one question changed; the form is read, checked and saved);
#   submit  — `mi submit FORM` (the whole form evaluated: relevance, constraints, calculations);
#   upload  — `mi upload ana/FORM` by the foreman to a release mi-server on loopback, which
#             evaluates the whole form again before storing it (a new form id every run).
# Median wall time of RUNS rounds (after one warm-up round) and the ratio logic/plain.
#   swift build -c release --product mi && swift build -c release --product mi-server
#   RUNS=15 bash scripts/bench-logic.sh
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${MI_BIN_DIR:-$here/.build/release}"
runs="${RUNS:-10}"
[ -x "$bin/mi" ] && [ -x "$bin/mi-server" ] || { echo "build first: swift build -c release --product mi && swift build -c release --product mi-server" >&2; exit 1; }
work="$(mktemp -d /tmp/mi-bench-logic.XXXXXX)"
. "$here/scripts/stack.sh"
trap 'stop_server; bash "$here/scripts/slapd-test.sh" stop "$work/slapd" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
python3 "$here/scripts/make-logic-bench.py" "$work"
mkdir -p "$work/templates"
cp "$here"/Samples/templates/*.json "$work/templates/"
cp "$work/bench-logic.json" "$work/bench-plain.json" "$work/templates/"
python3 - "$MI_CONFIG" "$work/templates" <<'PY'
import plistlib, sys
p = sys.argv[1]; c = plistlib.load(open(p, "rb")); c["Server"]["TemplatesDirectory"] = sys.argv[2]
plistlib.dump(c, open(p, "wb"))
PY
start_server
mi="$bin/mi"
echo ana-password | as ana "$mi" login --user ana --password-stdin >/dev/null
echo fiona-password | as fiona "$mi" login --user fiona --password-stdin >/dev/null
as ana "$mi" templates >/dev/null
docs="$work/Documents"
for kind in logic plain; do
  as ana "$mi" new "bench-$kind" --name "$kind" >/dev/null
  as ana "$mi" answer "$kind" --file "$work/answers-$kind.json" >/dev/null
  cp -a "$docs/Users/ana/$kind" "$work/keep-$kind"
  as ana "$mi" submit "$kind" >/dev/null
  cp -a "$docs/CompletedMIs/ana/$kind" "$work/keep-completed-$kind"
  rm -rf "$docs/CompletedMIs/ana/$kind"
  cp -a "$work/keep-$kind" "$docs/Users/ana/$kind"
done
for kind in logic plain; do
  python3 -c 'import json,os,sys; f=json.load(open(sys.argv[1])); print(sys.argv[2] + ":", len(f["answers"]), "answers, form.json", os.path.getsize(sys.argv[1]), "bytes")' \
    "$work/keep-completed-$kind/form.json" "$kind"
done

export bin work docs
# Runs each measurement's two commands in alternation, RUNS rounds after a warm-up round; a
# command's `prepare` runs before it, untimed.
python3 - "$runs" <<'PY'
import json, os, statistics, subprocess, sys, time, uuid
runs = int(sys.argv[1])
bin, work, docs = os.environ["bin"], os.environ["work"], os.environ["docs"]
mi = f"{bin}/mi"
def env(user):
    e = dict(os.environ); e["XDG_STATE_HOME"] = f"{work}/state/{user}"; return e
def sh(command, user="ana"):
    subprocess.run(command, shell=True, check=True, env=env(user), stdout=subprocess.DEVNULL)
counter = [0]
def answer(kind):
    counter[0] += 1
    return None, lambda: sh(f"'{mi}' answer {kind} q7 {counter[0] % 900 + 1}")
def submit(kind):
    def prepare():
        sh(f"rm -rf '{docs}/CompletedMIs/ana/{kind}' '{docs}/Users/ana/{kind}' && cp -a '{work}/keep-{kind}' '{docs}/Users/ana/{kind}'")
    return prepare, lambda: sh(f"'{mi}' submit {kind}")
def upload(kind):
    def prepare():
        sh(f"rm -rf '{docs}/CompletedMIs/ana/{kind}' && mkdir -p '{docs}/CompletedMIs/ana' && cp -a '{work}/keep-completed-{kind}' '{docs}/CompletedMIs/ana/{kind}'")
        path = f"{docs}/CompletedMIs/ana/{kind}/form.json"
        text = open(path).read()
        old = json.loads(text)["id"]
        open(path, "w").write(text.replace(old, str(uuid.uuid4())))
    return prepare, lambda: sh(f"'{mi}' upload ana/{kind}", user="fiona")
for name, make in (("answer", answer), ("submit", submit), ("upload", upload)):
    times = {"logic": [], "plain": []}
    for round in range(runs + 1):
        for kind in ("logic", "plain"):
            prepare, run = make(kind)
            if prepare: prepare()
            start = time.perf_counter(); run(); elapsed = time.perf_counter() - start
            if round: times[kind].append(elapsed)
    logic, plain = statistics.median(times["logic"]), statistics.median(times["plain"])
    print(f"{name}: plain {plain*1000:.1f} ms, logic {logic*1000:.1f} ms (medians of {runs}), ratio {logic/plain:.2f} (target <= 1.3)")
PY
