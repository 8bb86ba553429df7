#!/usr/bin/env bash
# Benchmark: the submissions listing (`GET /api/v1/submissions`) of a release mi-server over
# SUBMISSIONS (100,000) stored submissions: the first page, a page 50,000 rows deep through
# its cursor, a filter (template + technician), a date range, a search for a common and a rare
# word, and a sort by technician, each a `curl` with a foreman's token, against `sqlite3`
# counting the rows of the same database and `curl` asking the same server for /health (the
# baselines: a process start and one query; a request that does nothing).
# Then the office's pages over the same data, with the same token as the office cookie: the
# submissions page (the page, the count and the technicians of the filter form) and the
# dashboard (30 days of counts per day and per template, the newest submissions).
# Median wall time (hyperfine, RUNS runs each, alternating).
#
# Seeding: mi-server is started once on an empty data folder, so its migrations create the
# schema, then stopped; the rows are inserted straight into `submission` and the search index
# `submission_text` with one SQL statement each (sqlite3's recursive CTE): 50 technicians, 3
# templates, one upload every 86 s over the last 100 days, a search text of the form name and
# two of 20 Spanish words (each word in about 10% of the rows; `corrosión` in 1 row of 1,000).
# No file is written for them: the listing reads only the database. Needs sqlite3, hyperfine.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${MI_BIN_DIR:-$here/.build/release}"
count="${SUBMISSIONS:-100000}" runs="${RUNS:-20}"
[ -x "$bin/mi-server" ] || { echo "build first: swift build -c release --product mi-server" >&2; exit 1; }
for tool in sqlite3 hyperfine curl; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install $tool)" >&2; exit 1; }
done
work="$(mktemp -d /tmp/mi-bench-office.XXXXXX)"
. "$here/scripts/stack.sh"
db="$work/server-data/mi-server.sqlite"

start_server; stop_server
now=$(date +%s)
sqlite3 "$db" <<SQL
PRAGMA synchronous = OFF;
CREATE TEMP TABLE word (k INTEGER PRIMARY KEY, w TEXT);
INSERT INTO word VALUES (0,'bomba'),(1,'válvula'),(2,'sello'),(3,'presión'),(4,'fuga'),(5,'ruido'),(6,'motor'),
  (7,'correa'),(8,'filtro'),(9,'aceite'),(10,'junta'),(11,'tubería'),(12,'manómetro'),(13,'rodamiento'),(14,'eje'),
  (15,'acoplamiento'),(16,'carcasa'),(17,'tornillo'),(18,'alarma'),(19,'limpieza');
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $count)
INSERT INTO submission (id, technician, form_name, uploaded_by, received_at, summarized, template_id, template_title,
                        template_version, user_display_name, submitted_at, submitted_sort, answered, questions, media)
SELECT printf('%08x-0000-4000-8000-%012x', i, i), 'tech' || (i % 50), 'form-' || i, 'fiona',
       $now - 100 * 86400 + i * 86, 1,
       CASE i % 3 WHEN 0 THEN 'pump-inspection' WHEN 1 THEN 'extinguisher-check' ELSE 'boiler-check' END,
       CASE i % 3 WHEN 0 THEN 'Pump inspection' WHEN 1 THEN 'Extinguisher check' ELSE 'Boiler check' END,
       1, 'Technician ' || (i % 50), $now - 100 * 86400 + i * 86 - i % 3600,
       $now - 100 * 86400 + i * 86 - i % 3600, 6, 8, i % 4
FROM n;
INSERT INTO submission_text (rowid, body)
SELECT seq, form_name || ' ' || (SELECT w FROM word WHERE k = seq % 20) || ' ' || (SELECT w FROM word WHERE k = (seq * 7 + 3) % 20)
       || CASE WHEN seq % 1000 = 0 THEN ' corrosión' ELSE '' END
FROM submission;
COMMIT;
SQL
start_server
token=$(curl -sS --fail -H 'Content-Type: application/json' -d '{"user":"fiona","password":"fiona-password"}' \
  "http://127.0.0.1:$MI_DEMO_PORT/api/v1/session" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
office="http://127.0.0.1:$MI_DEMO_PORT"
api="$office/api/v1/submissions"
get() { curl -sS --fail -o /dev/null -H "Authorization: Bearer $token" "$api$1"; }

# The cursor of the page starting 50,000 rows down, found by walking 500 at a time.
cursor=
for _ in $(seq $((count / 2 / 500))); do
  cursor=$(curl -sS --fail -H "Authorization: Bearer $token" "$api?limit=500${cursor:+&cursor=$cursor}" |
    python3 -c 'import json,sys; print(json.load(sys.stdin).get("nextCursor") or "")')
done
echo "store: $(sqlite3 "$db" 'SELECT COUNT(*) FROM submission') submissions, $(du -h "$db" | cut -f1) database"
echo "a search for válvula matches $(sqlite3 "$db" "SELECT COUNT(*) FROM submission_text WHERE submission_text MATCH 'valvula'"), for corrosion $(sqlite3 "$db" "SELECT COUNT(*) FROM submission_text WHERE submission_text MATCH 'corrosion'")"

day=$(date -u -d "@$((now - 40 * 86400))" +%F)
hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/results.json" \
  -n "sqlite3 COUNT(*) (baseline)" "sqlite3 $db 'SELECT COUNT(*) FROM submission'" \
  -n "curl /health (baseline)" "curl -sS --fail -o /dev/null 'http://127.0.0.1:$MI_DEMO_PORT/health'" \
  -n "first page" "curl -sS --fail -o /dev/null -H 'Authorization: Bearer $token' '$api'" \
  -n "page 50,000 rows deep (cursor)" "curl -sS --fail -o /dev/null -H 'Authorization: Bearer $token' '$api?cursor=$cursor'" \
  -n "template + technician" "curl -sS --fail -o /dev/null -H 'Authorization: Bearer $token' '$api?template=pump-inspection&user=tech7'" \
  -n "one day (from = to)" "curl -sS --fail -o /dev/null -H 'Authorization: Bearer $token' '$api?from=$day&to=$day'" \
  -n "search: valvula (common)" "curl -sS --fail -o /dev/null -H 'Authorization: Bearer $token' '$api?q=valvula'" \
  -n "search: corrosion (rare)" "curl -sS --fail -o /dev/null -H 'Authorization: Bearer $token' '$api?q=corrosion'" \
  -n "sort by technician" "curl -sS --fail -o /dev/null -H 'Authorization: Bearer $token' '$api?sort=technician'" \
  -n "office: /submissions page" "curl -sS --fail -o /dev/null -H 'Cookie: mi_office=$token' '$office/submissions'" \
  -n "office: /submissions?q=valvula page" "curl -sS --fail -o /dev/null -H 'Cookie: mi_office=$token' '$office/submissions?q=valvula'" \
  -n "office: dashboard" "curl -sS --fail -o /dev/null -H 'Cookie: mi_office=$token' '$office/'"
python3 - "$work/results.json" <<'PY'
import json, sys
print("| | median ms | min | max |\n|---|---|---|---|")
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"| {r['command']} | {r['median'] * 1000:.1f} | {r['min'] * 1000:.1f} | {r['max'] * 1000:.1f} |")
PY
