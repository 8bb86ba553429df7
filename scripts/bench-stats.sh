#!/usr/bin/env bash
# Benchmark (issue 12): statistics over 10,000 completed forms against reading the same files raw.
#   mi stats  — `mi stats pump-inspection --json` (the foreman fiona: every technician's forms)
#               over a local store of 10,000 completed forms, against `find … | xargs cat` of
#               the same form.json files.
#   server_export — a release mi-server's export.zip of those submissions with ~1 GiB of photos,
#               against `zip -0 -r` of the same folder; time to first byte and peak RSS.
#   server_stats — a release mi-server's `GET /api/v1/templates/pump-inspection/stats` and
#               office page over the same forms stored as its submissions, against `find … |
#               xargs cat` of the stored form.json files.
# Each measurement is a function, so other parts (the server's statistics) add theirs and list
# them in `measurements`. Median wall time (`mi stats`: the commands alternating, see
# `alternate`; the server's parts: hyperfine) and peak RSS (/usr/bin/time).
#   FORMS=10000 USERS=50 RUNS=10 MI_BINARY=.build/release/mi bash scripts/bench-stats.sh [mi_stats|server_stats…]
#   MI_BEFORE=/tmp/mi-old adds an older mi's `mi stats --json` to the same rounds.
#   BENCH_DIR=/tmp/x keeps the work folder (the store is built once and reused when present).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
mi="${MI_BINARY:-$here/.build/release/mi}"
forms="${FORMS:-10000}" users="${USERS:-50}" runs="${RUNS:-10}"
[ -x "$mi" ] || { echo "build first: swift build -c release --product mi" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }

work="${BENCH_DIR:-$(mktemp -d /tmp/mi-bench-stats.XXXXXX)}"
mkdir -p "$work"
trap 'bash "$here/scripts/slapd-test.sh" stop "$work/slapd" >/dev/null 2>&1 || true' EXIT
eval "$(bash "$here/scripts/slapd-test.sh" start "$work/slapd" 2>/dev/null)"

# The store: 10,000 completed pump inspections of 50 technicians, each cloned from a form `mi`
# wrote and given new answers (scripts/make-bench-store.py --completed), submitted over 60 days.
make_store() {
  rm -rf "$work/seed" && mkdir -p "$work/seed"
  bash "$here/scripts/demo-config.sh" "$work/seed/Config.plist" "$work/seed/Documents"
  export MI_CONFIG="$work/seed/Config.plist" XDG_STATE_HOME="$work/state-seed"
  echo ana-password | "$mi" login --user ana --password-stdin >/dev/null
  "$mi" templates import "$here/Samples/templates" >/dev/null
  "$mi" new pump-inspection --name a >/dev/null
  printf '%s\n' yes 2 "$here/Samples/media/seal.png" "" 1 "1,3" 12.5 1200 60 2.1 58 1.9 65 ":c all good" "" ":x" | "$mi" fill a >/dev/null
  python3 "$here/scripts/make-bench-store.py" "$work/seed/Documents" "$work/Documents" "$forms" "$users" --completed
}
[ -d "$work/Documents/CompletedMIs" ] || make_store
# Written each run: the throwaway directory listens on a new port every time.
bash "$here/scripts/demo-config.sh" "$work/Config.plist" "$work/Documents"
export MI_CONFIG="$work/Config.plist" XDG_STATE_HOME="$work/state-fiona"
echo fiona-password | "$mi" login --user fiona --password-stdin >/dev/null
cd "$work"
echo "store: $(find Documents/CompletedMIs -name form.json | wc -l) completed forms, $(du -sh Documents | cut -f1)"

rss() { /usr/bin/time -f %M bash -c "$1" 2>&1 >/dev/null | tail -1; }

# Prints the medians of a hyperfine JSON export: the baseline (the command named $2) and the
# ratio of every other command to it; $3 is a label, $4 a peak RSS in KiB to report.
report() {
  python3 - "$@" <<'PY'
import json, sys
path, baseline, label, rss = sys.argv[1:5]
target = sys.argv[5] if len(sys.argv) > 5 else "2"
results = {r["command"]: r["median"] for r in json.load(open(path))["results"]}
base = results.pop(baseline)
print(f"{label}: {baseline} {base*1000:.1f} ms (median)")
for name, median in results.items():
    print(f"  {name}: {median*1000:.1f} ms, ratio {median/base:.2f} (target <= {target})")
print(f"  peak RSS: {int(rss)/1024:.1f} MiB")
PY
}

# Times commands in alternation, `runs` rounds of each after one warm-up round, so load from
# other work on a shared machine falls on all of them alike (hyperfine runs one command's runs
# together). Writes the wall times in hyperfine's JSON layout (`report` reads it).
#   alternate OUT.json NAME COMMAND [NAME COMMAND …]
alternate() {
  python3 - "$runs" "$@" <<'PY'
import json, statistics, subprocess, sys, time
runs, out, pairs = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
commands = list(zip(pairs[0::2], pairs[1::2]))
times = {name: [] for name, _ in commands}
for round in range(runs + 1):
    for name, command in commands:
        start = time.perf_counter()
        subprocess.run(command, shell=True, check=True)
        if round > 0: times[name].append(time.perf_counter() - start)
json.dump({"results": [{"command": name, "median": statistics.median(values), "times": values}
                       for name, values in times.items()]}, open(out, "w"))
PY
}

# `mi stats --json` and the text output, against reading every form.json of CompletedMIs.
# MI_BEFORE=path/to/an/older/mi times that binary alongside (a change's before and after).
bench_mi_stats() {
  local before=()
  [ -z "${MI_BEFORE:-}" ] || before=("mi stats --json (MI_BEFORE)" "'$MI_BEFORE' stats pump-inspection --json > /dev/null")
  alternate "$work/times-mi-stats.json" \
    "mi stats --json" "'$mi' stats pump-inspection --json > /dev/null" \
    "mi stats (text)" "'$mi' stats pump-inspection > /dev/null" \
    "${before[@]}" \
    "find | xargs cat" "find Documents/CompletedMIs -name form.json -print0 | xargs -0 cat > /dev/null"
  report "$work/times-mi-stats.json" "find | xargs cat" "mi stats over $forms local forms" \
    "$(rss "'$mi' stats pump-inspection --json")"
}

# The server's half: the same 10,000 forms as mi-server's stored submissions. A release
# mi-server is started once on an empty data folder (its migrations make the schema) and
# stopped; each form.json is copied to `submissions/<id>/` and its row (with the summary the
# server keeps, as an upload records it) inserted by Python's sqlite3. fiona's token asks
# `GET /api/v1/templates/pump-inspection/stats` (and with `groupBy`), and the same token as
# the office cookie the page `/templates/pump-inspection/stats`, each a `curl`, against
# `find | xargs cat` of the same form.json files. Peak RSS: the server's VmHWM after the runs.
bin="$(dirname "${MI_SERVER_BINARY:-$(dirname "$mi")/mi-server}")"
. "$here/scripts/server-process.sh"
# The server's own Config.plist (fiona's MI_CONFIG stays as it is for `mi`).
start_bench_server() { MI_CONFIG="$work/Server.plist" start_server; }

make_server_data() {
  rm -rf "$work/server-data"
  start_bench_server; stop_server
  python3 - "$work/Documents/CompletedMIs" "$work/server-data" <<'PY'
import hashlib, json, os, shutil, sqlite3, sys, time
from datetime import datetime
completed, data = sys.argv[1:3]
db = sqlite3.connect(os.path.join(data, "mi-server.sqlite"))
db.execute("PRAGMA synchronous = OFF")
now = int(time.time())
seconds = lambda text: int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())
for root, _, files in sorted(os.walk(completed)):
    if "form.json" not in files:
        continue
    raw = open(os.path.join(root, "form.json"), "rb").read()
    form = json.loads(raw)
    form_id = form["id"].lower()
    folder = os.path.join(data, "submissions", form_id)
    os.makedirs(folder)
    shutil.copyfile(os.path.join(root, "form.json"), os.path.join(folder, "form.json"))
    submitted = seconds(form["submittedAt"]) if form.get("submittedAt") else None
    answers = form.get("answers", {})
    db.execute("""INSERT INTO submission (id, technician, form_name, uploaded_by, received_at, summarized, template_id, template_title,
                  template_version, user_display_name, submitted_at, submitted_sort, answered, questions, media)
                  VALUES (?, ?, ?, 'fiona', ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
               (form_id, form["user"], form["name"], now, form["template"]["id"], form["template"]["title"],
                form["template"]["version"], form.get("userDisplayName"), submitted, submitted or 0,
                sum(1 for a in answers.values() if "value" in a or "comment" in a), len(form["template"]["questions"]),
                sum(len(a.get("media", [])) for a in answers.values())))
    db.execute("INSERT INTO part (submission_id, position, name, filename, size, sha256) VALUES (?, 0, 'form', 'form.json', ?, ?)",
               (form_id, len(raw), hashlib.sha256(raw).hexdigest()))
db.commit()
PY
}

# GET …/stats (JSON, and grouped by a question) and the office's page, against reading every
# form.json the server stores.
bench_server_stats() {
  [ -x "$bin/mi-server" ] || { echo "build first: swift build -c release --product mi-server" >&2; exit 1; }
  local port=$((20000 + RANDOM % 40000))
  MI_DEMO_PORT=$port MI_DEMO_TEMPLATES="$here/Samples/templates" MI_DEMO_DATA="$work/server-data" \
    bash "$here/scripts/demo-config.sh" "$work/Server.plist" "$work/Documents"
  [ -f "$work/server-data/mi-server.sqlite" ] && [ -d "$work/server-data/submissions" ] || make_server_data
  start_bench_server
  trap 'stop_server; bash "$here/scripts/slapd-test.sh" stop "$work/slapd" >/dev/null 2>&1 || true' EXIT
  local base="http://127.0.0.1:$port" token
  token=$(curl -sS --fail -H 'Content-Type: application/json' -d '{"user":"fiona","password":"fiona-password"}' \
    "$base/api/v1/session" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
  local api="$base/api/v1/templates/pump-inspection/stats"
  echo "server: $(find server-data/submissions -name form.json | wc -l) stored submissions; the API counts" \
    "$(curl -sS --fail -H "Authorization: Bearer $token" "$api" | python3 -c 'import json,sys; print(json.load(sys.stdin)["forms"])') forms"
  # CPU seconds the server spends (utime + stime of /proc/PID/stat, in clock ticks), which a
  # machine shared with other work disturbs less than wall time.
  cpu() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$server_pid/stat"; }
  local cpu_before cpu_after
  cpu_before=$(cpu)
  hyperfine -N --warmup 2 --runs "$runs" --export-json "$work/hyperfine-server-stats.json" \
    -n "GET …/stats" "curl -sS --fail -o /dev/null -H 'Authorization: Bearer $token' '$api'" \
    -n "GET …/stats?groupBy=noise" "curl -sS --fail -o /dev/null -H 'Authorization: Bearer $token' '$api?groupBy=noise'" \
    -n "office /templates/…/stats" "curl -sS --fail -o /dev/null -H 'Cookie: mi_office=$token' '$base/templates/pump-inspection/stats'" \
    -n "find | xargs cat" "bash -c 'find server-data/submissions -name form.json -print0 | xargs -0 cat > /dev/null'" >/dev/null
  cpu_after=$(cpu)
  local peak
  peak=$(awk '/VmHWM/ {print $2}' "/proc/$server_pid/status")
  report "$work/hyperfine-server-stats.json" "find | xargs cat" "mi-server statistics over $forms stored submissions" "$peak"
  python3 - "$work/hyperfine-server-stats.json" "$cpu_before" "$cpu_after" "$runs" <<'PY'
import json, sys
path, before, after, runs = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
results = {r["command"]: r for r in json.load(open(path))["results"]}
base = results["find | xargs cat"]
base_cpu = base["user"] + base["system"]
requests = (len(results) - 1) * (runs + 2)
print(f"  CPU: find | xargs cat {base_cpu*1000:.0f} ms; mi-server {(after - before) / requests * 1000:.0f} ms per request"
      f" (mean of the three), on {__import__('os').cpu_count()} cores")
PY
  stop_server
}

# The export (issue 12): the same stored submissions, each with one ~105 KiB photo (about 1 GiB
# in all), downloaded from a release mi-server's `GET …/export.zip` (CSV + media, streamed)
# against `zip -0 -r` of the same folder (stored entries, as the export writes them). Also the
# time to the first byte and mi-server's peak RSS (VmHWM) after the runs.
make_export_data() {
  if [ ! -f "$work/server-data/mi-server.sqlite" ]; then
    MI_DEMO_PORT=$((20000 + RANDOM % 40000)) MI_DEMO_TEMPLATES="$here/Samples/templates" MI_DEMO_DATA="$work/server-data" \
      bash "$here/scripts/demo-config.sh" "$work/Server.plist" "$work/Documents"
    make_server_data
  fi
  rm -rf "$work/export-data" && cp -a "$work/server-data" "$work/export-data"
  python3 - "$work/export-data" <<'PY'
import hashlib, json, os, random, sqlite3, sys
data = sys.argv[1]
db = sqlite3.connect(os.path.join(data, "mi-server.sqlite"))
db.execute("PRAGMA synchronous = OFF")
rng = random.Random(12)
for form_id in sorted(os.listdir(os.path.join(data, "submissions"))):
    folder = os.path.join(data, "submissions", form_id)
    path = os.path.join(folder, "form.json")
    form = json.load(open(path, encoding="utf-8"))
    photo = rng.randbytes(100 * 1024 + rng.randrange(10 * 1024))
    name = "Qid0(1).jpg"
    open(os.path.join(folder, name), "wb").write(photo)
    question = form["template"]["questions"][0]["id"]
    form["answers"].setdefault(question, {}).setdefault("media", []).append(name)
    form["media"] = form.get("media", 0) + 1
    raw = (json.dumps(form, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n").encode()
    open(path, "wb").write(raw)
    db.execute("UPDATE part SET size = ?, sha256 = ? WHERE submission_id = ? AND position = 0",
               (len(raw), hashlib.sha256(raw).hexdigest(), form_id))
    db.execute("INSERT INTO part (submission_id, position, name, filename, size, sha256) VALUES (?, 1, 'media', ?, ?, ?)",
               (form_id, name, len(photo), hashlib.sha256(photo).hexdigest()))
    db.execute("UPDATE submission SET media = media + 1 WHERE id = ?", (form_id,))
db.commit()
PY
}

bench_server_export() {
  [ -x "$bin/mi-server" ] || { echo "build first: swift build -c release --product mi-server" >&2; exit 1; }
  local port=$((20000 + RANDOM % 40000))
  MI_DEMO_PORT=$port MI_DEMO_TEMPLATES="$here/Samples/templates" MI_DEMO_DATA="$work/export-data" \
    bash "$here/scripts/demo-config.sh" "$work/Export.plist" "$work/Documents"
  [ -d "$work/export-data/submissions" ] || make_export_data
  MI_CONFIG="$work/Export.plist" start_server
  trap 'stop_server; bash "$here/scripts/slapd-test.sh" stop "$work/slapd" >/dev/null 2>&1 || true' EXIT
  local base="http://127.0.0.1:$port" token
  token=$(curl -sS --fail -H 'Content-Type: application/json' -d '{"user":"fiona","password":"fiona-password"}' \
    "$base/api/v1/session" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
  local api="$base/api/v1/templates/pump-inspection/export.zip"
  echo "export: $(find export-data/submissions -type f | wc -l) files, $(du -sh export-data/submissions | cut -f1)"
  local first
  first=$(curl -sS --fail -o "$work/export.zip" -w '%{time_starttransfer}' -H "Authorization: Bearer $token" "$api")
  python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(f"export.zip: {len(z.namelist())} entries")' "$work/export.zip"
  hyperfine -N --warmup 1 --runs "$runs" --export-json "$work/hyperfine-server-export.json" \
    -n "GET …/export.zip" "curl -sS --fail -o '$work/export.zip' -H 'Authorization: Bearer $token' '$api'" \
    -n "zip -0 -r" "bash -c 'cd export-data && rm -f $work/baseline.zip && zip -0 -r -q $work/baseline.zip submissions'" >/dev/null
  local peak
  peak=$(awk '/VmHWM/ {print $2}' "/proc/$server_pid/status")
  report "$work/hyperfine-server-export.json" "zip -0 -r" "mi-server export of $forms submissions with media" "$peak" 1.3
  echo "  time to the first byte: ${first}s"
  stop_server
}

measurements=("$@")
[ ${#measurements[@]} -gt 0 ] || measurements=(mi_stats server_stats)
for measurement in "${measurements[@]}"; do "bench_$measurement"; done
