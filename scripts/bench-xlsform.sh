#!/usr/bin/env bash
# Benchmark (issue 25 item 7): importing a 2,000-row XLSForm (groups, a repeat in each, three label
# languages, 200 choice lists of 5) with MI (release `xlsx-dump --xlsform`: XLSForm.read, what
# `mi templates import` and the office upload run) against pyxform's xls2json (parse_file_to_json)
# of the same file, both in-process, median of RUNS imports each, side by side in one run.
#   RUNS=20 bash scripts/bench-xlsform.sh      (builds: swift build -c release --product xlsx-dump)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
runs="${RUNS:-20}"
oracle="$here/Tests/MIXLSFormTests/Resources/xlsform_oracle.py"
export PATH="/opt/swift/usr/bin:$PATH"
(cd "$here" && swift build -c release --product xlsx-dump 2>&1 | tail -1) >&2
dump="$(cd "$here" && swift build -c release --show-bin-path)/xlsx-dump"
work="$(mktemp -d /tmp/mi-bench-xlsform.XXXXXX)"
trap 'rm -rf "$work"' EXIT

python3 "$oracle" bench "$work/bench.xlsx"
mi=$("$dump" --xlsform "$runs" "$work/bench.xlsx")
py=$(python3 "$oracle" time "$work/bench.xlsx" "$runs")
python3 - "$(stat -c %s "$work/bench.xlsx")" "$mi" "$py" "$runs" <<'PY'
import json, sys
size, mi, py, runs = int(sys.argv[1]), json.loads(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4]
print("| XLSForm | MI (XLSForm.read) median | pyxform xls2json median | MI / pyxform |\n|---|---|---|---|")
print(f"| 2,000 rows, {mi['questions']} questions, 3 languages, 200 lists ({size / 1024:.0f} KiB) | "
      f"{mi['median'] * 1000:.1f} ms | {py['median'] * 1000:.1f} ms | {mi['median'] / py['median']:.3f} (target ≤ 0.1) |")
print(f"(median of {runs} imports each)")
PY
