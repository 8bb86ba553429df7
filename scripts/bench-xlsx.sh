#!/usr/bin/env bash
# Benchmark (issue 25 item 5): reading .xlsx workbooks with MIXLSForm (release `xlsx-dump --bench`)
# against openpyxl (`load_workbook(data_only=True)` and a walk over every cell), both in-process,
# median of RUNS reads each, side by side in one run:
#   bench     — a 2,000-row, 3-sheet workbook in an XLSForm's shape (survey, choices, data),
#               written by openpyxl (Tests/MIXLSFormTests/Resources/xlsx_oracle.py make bench)
#   tall      — 100 rows in a sheet whose <dimension> declares A1:Z1048576
#   RUNS=20 bash scripts/bench-xlsx.sh      (builds: swift build -c release --product xlsx-dump)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
runs="${RUNS:-20}"
oracle="$here/Tests/MIXLSFormTests/Resources/xlsx_oracle.py"
export PATH="/opt/swift/usr/bin:$PATH"
(cd "$here" && swift build -c release --product xlsx-dump 2>&1 | tail -1) >&2
dump="$(cd "$here" && swift build -c release --show-bin-path)/xlsx-dump"
work="$(mktemp -d /tmp/mi-bench-xlsx.XXXXXX)"
trap 'rm -rf "$work"' EXIT

printf '| workbook | size | MI (MIXLSForm) median | openpyxl median | ratio |\n|---|---|---|---|---|\n'
for kind in bench tall; do
  python3 "$oracle" make "$kind" "$work/$kind.xlsx"
  mi=$("$dump" --bench "$runs" "$work/$kind.xlsx")
  py=$(python3 "$oracle" bench "$work/$kind.xlsx" "$runs")
  python3 - "$kind" "$(stat -c %s "$work/$kind.xlsx")" "$mi" "$py" <<'PY'
import json, sys
kind, size, mi, py = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3]), json.loads(sys.argv[4])
assert mi["cells"] == py["cells"], f"cell counts differ: MI {mi['cells']}, openpyxl {py['cells']}"
print(f"| {kind} ({mi['cells']} cells) | {size / 1024:.0f} KiB | {mi['median'] * 1000:.1f} ms | "
      f"{py['median'] * 1000:.1f} ms | {py['median'] / mi['median']:.1f}× faster |")
PY
done
