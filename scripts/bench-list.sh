#!/usr/bin/env bash
# Benchmark: `mi list --json` (ana) and `mi queue --json` (the foreman fiona) over a store of
# 10,000 forms from 50 users (both include the expiry sweep over every incomplete form) against
# `find … | xargs cat` reading every form.json of the same tree; then the same over a copy whose
# every form.json was rewritten by `python3 -m json.tool` (another JSON tool's layout).
# MI_BASELINE=/path/to/an/older/mi adds its `mi queue` to both runs, side by side.
# Median wall time (hyperfine, alternating) and peak RSS (/usr/bin/time).
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
printf '%s\n' yes 2 "$here/Samples/media/seal.png" "" 1 "1,3" 12.5 1200 60 2.1 58 1.9 65 ":c all good" "" ":x" | "$mi" fill a >/dev/null
"$mi" new extinguisher-check --name b >/dev/null
"$mi" answer b location "Hall B" >/dev/null

# 10,000 forms; user number 7 is ana, the one logged in.
python3 "$here/scripts/make-bench-store.py" "$work/seed/Documents" "$work/Documents" "$forms" "$users"
export XDG_STATE_HOME="$work/state-fiona"
echo fiona-password | "$mi" login --user fiona --password-stdin >/dev/null
cd "$work"
# The same store with every form.json pretty-printed by another JSON tool.
rm -rf Documents-pretty && cp -r Documents Documents-pretty
find Documents-pretty -name form.json -print0 | xargs -0 -n 200 python3 -c '
import json, sys
for path in sys.argv[1:]:
    data = json.load(open(path, encoding="utf-8"))
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=4, ensure_ascii=False)
'
echo "store: $(find Documents -name form.json | wc -l) forms, $(du -sh Documents | cut -f1); pretty copy $(du -sh Documents-pretty | cut -f1)"

rss() { /usr/bin/time -f %M bash -c "$1" 2>&1 >/dev/null | tail -1; }
for layout in Documents Documents-pretty; do
  bash "$here/scripts/demo-config.sh" "$work/Config.plist" "$work/$layout"
  export MI_CONFIG="$work/Config.plist"
  commands=(-n "mi list --json" "XDG_STATE_HOME='$work/state' '$mi' list --json > /dev/null"
            -n "mi queue --json" "'$mi' queue --json > /dev/null")
  [ -n "${MI_BASELINE:-}" ] && commands+=(-n "baseline mi queue --json" "'$MI_BASELINE' queue --json > /dev/null")
  commands+=(-n "find | xargs cat" "find $layout -name form.json -print0 | xargs -0 cat > /dev/null")
  hyperfine --warmup 3 --runs "$runs" --export-json "$work/hyperfine-$layout.json" "${commands[@]}" >/dev/null
  queue_rss=$(rss "'$mi' queue --json")
  python3 - "$work/hyperfine-$layout.json" "$layout" "$queue_rss" <<'PY'
import json, sys
results = {r["command"]: r["median"] for r in json.load(open(sys.argv[1]))["results"]}
base = results.pop("find | xargs cat")
layout = "mi's own layout" if sys.argv[2] == "Documents" else "pretty-printed by python3 -m json.tool"
print(f"{layout}: find|xargs cat {base*1000:.1f} ms (median)")
for name, median in results.items():
    print(f"  {name}: {median*1000:.1f} ms, ratio {median/base:.2f}")
print(f"  peak RSS of mi queue --json: {int(sys.argv[3])/1024:.1f} MiB")
PY
done
