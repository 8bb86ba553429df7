#!/usr/bin/env bash
# Benchmark: `mi list --json` over a store of 10,000 forms from 50 users (which includes the
# expiry sweep over every incomplete form) against `find … | xargs cat` reading every form.json
# of the same tree. Median wall time (hyperfine, alternating) and peak RSS (/usr/bin/time).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
mi="${MI_BINARY:-$here/.build/release/mi}"
forms="${FORMS:-10000}" users="${USERS:-50}" runs="${RUNS:-15}"
[ -x "$mi" ] || { echo "build first: swift build -c release" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }

work="${BENCH_DIR:-$(mktemp -d /tmp/mi-bench.XXXXXX)}"
trap 'bash "$here/scripts/slapd-test.sh" stop "$work/slapd" >/dev/null 2>&1 || true' EXIT
eval "$(bash "$here/scripts/slapd-test.sh" start "$work/slapd" 2>/dev/null)"
mkdir -p "$work/seed"
bash "$here/scripts/demo-config.sh" "$work/seed/Config.plist" "$work/seed/Documents"
export MI_CONFIG="$work/seed/Config.plist" XDG_STATE_HOME="$work/state"
echo ana-password | "$mi" login --user ana --password-stdin >/dev/null
"$mi" templates import "$here/Samples/templates" >/dev/null
# Seed forms written by mi itself: one filled pump inspection with a comment, one short form.
"$mi" new pump-inspection --name a >/dev/null
printf '%s\n' yes 2 1 "1,3" 12.5 1200 60 2.1 58 1.9 65 ":c all good" "" ":x" | "$mi" fill a >/dev/null
"$mi" new extinguisher-check --name b >/dev/null
"$mi" answer b location "Hall B" >/dev/null

# 10,000 forms; user number 7 is ana, the one logged in.
python3 "$here/scripts/make-bench-store.py" "$work/seed/Documents" "$work/Documents" "$forms" "$users"
bash "$here/scripts/demo-config.sh" "$work/Config.plist" "$work/Documents"
export MI_CONFIG="$work/Config.plist"
cd "$work"
echo "store: $(find Documents -name form.json | wc -l) forms, $(du -sh Documents | cut -f1)"

hyperfine --warmup 3 --runs "$runs" --export-json "$work/hyperfine.json" \
  -n "mi list --json" "'$mi' list --json > /dev/null" \
  -n "find | xargs cat" "find Documents -name form.json -print0 | xargs -0 cat > /dev/null"

rss() { /usr/bin/time -f %M bash -c "$1" 2>&1 >/dev/null | tail -1; }
mi_rss=$(rss "'$mi' list --json")
cat_rss=$(rss "find Documents -name form.json -print0 | xargs -0 cat")
python3 - "$work/hyperfine.json" "$mi_rss" "$cat_rss" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
mi, base = results["mi list --json"]["median"], results["find | xargs cat"]["median"]
print(f"median wall: mi list --json {mi*1000:.1f} ms, find|xargs cat {base*1000:.1f} ms, ratio {mi/base:.2f}")
print(f"peak RSS: mi {int(sys.argv[2])/1024:.1f} MiB, find|xargs cat (largest process) {int(sys.argv[3])/1024:.1f} MiB")
PY
