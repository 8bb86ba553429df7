#!/usr/bin/env bash
# Benchmark (issue 12): statistics over 10,000 completed forms against reading the same files raw.
#   mi stats  — `mi stats pump-inspection --json` (the foreman fiona: every technician's forms)
#               over a local store of 10,000 completed forms, against `find … | xargs cat` of
#               the same form.json files.
# Each measurement is a function, so other parts (the server's statistics) add theirs and list
# them in `measurements`. Median wall time (hyperfine, alternating) and peak RSS (/usr/bin/time).
#   FORMS=10000 USERS=50 RUNS=10 MI_BINARY=.build/release/mi bash scripts/bench-stats.sh [measurement…]
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
  printf '%s\n' yes 2 1 "1,3" 12.5 1200 60 2.1 58 1.9 65 ":c all good" "" ":x" | "$mi" fill a >/dev/null
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
results = {r["command"]: r["median"] for r in json.load(open(path))["results"]}
base = results.pop(baseline)
print(f"{label}: {baseline} {base*1000:.1f} ms (median)")
for name, median in results.items():
    print(f"  {name}: {median*1000:.1f} ms, ratio {median/base:.2f} (target <= 2)")
print(f"  peak RSS: {int(rss)/1024:.1f} MiB")
PY
}

# `mi stats --json` and the text output, against reading every form.json of CompletedMIs.
bench_mi_stats() {
  hyperfine --warmup 2 --runs "$runs" --export-json "$work/hyperfine-mi-stats.json" \
    -n "mi stats --json" "'$mi' stats pump-inspection --json > /dev/null" \
    -n "mi stats (text)" "'$mi' stats pump-inspection > /dev/null" \
    -n "find | xargs cat" "find Documents/CompletedMIs -name form.json -print0 | xargs -0 cat > /dev/null" >/dev/null
  report "$work/hyperfine-mi-stats.json" "find | xargs cat" "mi stats over $forms local forms" \
    "$(rss "'$mi' stats pump-inspection --json")"
}

measurements=("$@")
[ ${#measurements[@]} -gt 0 ] || measurements=(mi_stats)
for measurement in "${measurements[@]}"; do "bench_$measurement"; done
