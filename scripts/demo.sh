#!/usr/bin/env bash
# The whole job end to end on the shipped sample data, on loopback: a throwaway directory (slapd
# with sample users) and a real mi-server. A technician downloads the templates, fills a form
# question by question (piped answers), attaches a photo and submits, fills two scored study
# questionnaires (IPAQ and MMSE, each with a consent and once per person); a foreman reviews it,
# comments, reassigns another technician's draft, sends one form back, and uploads them with 30
# simulated forms (`mi simulate`, a fixed seed) so the statistics page has data; the server
# shows the submissions. MI_STACK_DB=postgres or cluster (scripts/stack.sh; `make demo-cluster`)
# runs the same flow on PostgreSQL, or through nginx in front of two mi-servers. With OFFICE=1
# (`make demo OFFICE=1`) mi-server keeps running at the end so the office can be opened in a
# browser, until Ctrl-C.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${MI_BIN_DIR:-$here/.build/debug}"
mi="$bin/mi"
[ -x "$mi" ] && [ -x "$bin/mi-server" ] || { echo "build first: make build" >&2; exit 1; }

work="$(mktemp -d /tmp/mi-demo.XXXXXX)"
# A real gpsd (gpsfake replaying a receiver's log) for the fire-hydrant inspection's locations.
export MI_STACK_GPS_LOG="$here/Samples/gps/hydrant.nmea"
. "$here/scripts/stack.sh"
start_server
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

step "mi login --user ana   (directory: slapd at $LDAP_TEST_URL, server: $stack_description)"
echo ana-password | as ana "$mi" login --user ana --password-stdin
step "mi templates   (downloaded from mi-server into the offline cache)"
as ana "$mi" templates

step mi new pump-inspection --name pump-7
as ana "$mi" new pump-inspection --name pump-7
step "mi fill pump-7   (answers piped in, with a photo of the leak; :c adds a comment, then the review; :s submits)"
printf '%s\n' yes 2 "$here/Samples/media/seal.png" "" 1 "1,3" 12.5 1200 60 2.1 58 1.9 65 ":c Bolt on the guard replaced" "" | as ana "$mi" fill pump-7 | tail -3
step mi attach pump-7 leaks Samples/media/gauge.jpg
as ana "$mi" attach pump-7 leaks "$here/Samples/media/gauge.jpg"
step "mi attach pump-7 guard Samples/media/pump-running.webm; mi attach pump-7 noise Samples/media/pump-noise.ogg"
as ana "$mi" attach pump-7 guard "$here/Samples/media/pump-running.webm"
as ana "$mi" attach pump-7 noise "$here/Samples/media/pump-noise.ogg"
step mi submit pump-7
as ana "$mi" submit pump-7
step "mi new extinguisher-check --name post-4 + answers; mi submit post-4"
as ana "$mi" new extinguisher-check --name post-4 >/dev/null
printf '{"location": "Hall B", "pressure-ok": false, "seal": ["Broken"], "weight": 5.5}' > "$work/post-4.json"
as ana "$mi" answer post-4 --file "$work/post-4.json"
as ana "$mi" submit post-4
step "mi new ipaq --name ipaq-ana; mi answer ipaq-ana --file answers.json --accept-consent   (a study questionnaire: consent, a scorer)"
as ana "$mi" new ipaq --name ipaq-ana >/dev/null
printf '{"firstQuestionVigorous": 3, "secondQuestionVigorous": 40, "thirdQuestionModerate": 2, "fourthQuestionModerate": 30, "fifthQuestionWalk": 5, "sixthQuestionWalk": 30, "seventhQuestionSedentary": 420}' > "$work/ipaq.json"
as ana "$mi" answer ipaq-ana --file "$work/ipaq.json" --accept-consent
step "mi review ipaq-ana   (the IPAQ scores: MET-minutes a week and the category)"
COLUMNS=140 as ana "$mi" review ipaq-ana | sed -n '/^Consent/p;/^Scores/,$p'
as ana "$mi" submit ipaq-ana >/dev/null
step "mi new ipaq   (once per person: a second form is refused)"
as ana "$mi" new ipaq || true
step "mi new mmse --name mmse-ana + answers (today's date, serial sevens with one slip, the pictures' names); mi review"
as ana "$mi" new mmse --name mmse-ana >/dev/null
printf '{"timeQuestionWeekDay": "%s", "timeQuestionYear": %d, "timeQuestionMonth": "%d", "timeQuestionDay": %d,
 "spaceQuestionCountry": "México", "spaceQuestionArea": "Jalisco", "spaceQuestionLocality": "Guadalajara",
 "concentrationQuestionOne": 93, "concentrationQuestionTwo": 85, "concentrationQuestionThree": 78,
 "concentrationQuestionFour": 71, "concentrationQuestionFive": 64,
 "watchImageQuestion": "un reloj", "pencilImageQuestion": "Bolígrafo",
 "letterQuestion": "Querida Ana, hoy fui al parque.", "memoryQuestion": 64}' \
  "$(LC_ALL=C date +%A)" "$(date +%Y)" "$(date +%-m)" "$(date +%-d)" > "$work/mmse.json"
as ana "$mi" answer mmse-ana --file "$work/mmse.json" --accept-consent
COLUMNS=140 as ana "$mi" review mmse-ana | sed -n '/^Scores/,$p'
as ana "$mi" submit mmse-ana >/dev/null
step "mi new hydrant-inspection --name hydrant-12   (the template records where a form is started: a fix from gpsd, here gpsfake replaying Samples/gps/hydrant.nmea)"
as ana "$mi" new hydrant-inspection --name hydrant-12
step "mi answer hydrant-12 asset-tag --from-image Samples/media/hydrant-tag.jpg   (zbarimg reads the Code 128 on the tag; the photo is kept)"
as ana "$mi" answer hydrant-12 asset-tag --from-image "$here/Samples/media/hydrant-tag.jpg"
step "mi answer hydrant-12 position --gps   (a location question answered by gpsd)"
as ana "$mi" answer hydrant-12 position --gps
step "mi answer hydrant-12 --file answers.json   (a date, a time, a 1–5 rating, yes/no, a number); the photo of the outlet is its answer"
printf '{"last-service": "2025-03-14", "opened-at": "10:40", "flow": 4, "caps-ok": true, "pressure": 5.5}' > "$work/hydrant.json"
as ana "$mi" answer hydrant-12 --file "$work/hydrant.json"
as ana "$mi" answer hydrant-12 outlet-photo "$here/Samples/media/hydrant-outlet.jpg"
step "mi review hydrant-12"
COLUMNS=140 as ana "$mi" review hydrant-12
as ana "$mi" submit hydrant-12 >/dev/null
step "mi simulate hydrant-inspection --count 12 --seed 12 --near \"19.4326 -99.1332 2240\" --submit   (hydrants around the real one, for the map of the statistics page)"
as ana "$mi" simulate hydrant-inspection --count 12 --seed 12 --near "19.4326 -99.1332 2240" --submit | tail -1
step "mi new pump-station --name ps-4; mi answer ps-4 --file Samples/answers/pump-station.json   (a pumping station: a repeat asked once per pump, paths such as pumps[2]/amps, each pump's power calculated and summed)"
as ana "$mi" new pump-station --name ps-4 >/dev/null
as ana "$mi" answer ps-4 --file "$here/Samples/answers/pump-station.json"
step "mi answer ps-4 pumps[2]/amps 70   (the constraint reads the same pump's rated current: refused, nothing saved)"
as ana "$mi" answer ps-4 'pumps[2]/amps' 70 || true
step "mi answer ps-4 ventilation yes   (asked only because the station draws more than 50 kW); mi submit ps-4"
as ana "$mi" answer ps-4 ventilation yes
as ana "$mi" submit ps-4 >/dev/null
step "bob starts a draft: mi new extinguisher-check --name hall-c"
echo bob-password | as bob "$mi" login --user bob --password-stdin >/dev/null
as bob "$mi" new extinguisher-check --name hall-c

step "mi login --user fiona   (a foreman)"
echo fiona-password | as fiona "$mi" login --user fiona --password-stdin
step mi queue
COLUMNS=140 as fiona "$mi" queue
step mi review ana/pump-7
COLUMNS=140 as fiona "$mi" review ana/pump-7
step 'mi comment ana/pump-7 "Good photo of the seal leak"'
as fiona "$mi" comment ana/pump-7 "Good photo of the seal leak"
step "mi assign bob/hall-c --to carla"
as fiona "$mi" assign bob/hall-c --to carla
step 'mi return ana/post-4 --note "Seal broken: attach a photo"'
as fiona "$mi" return ana/post-4 --note "Seal broken: attach a photo"
step "mi simulate pump-inspection --count 30 --seed 2026 --submit   (ana: simulated forms for the statistics page)"
as ana "$mi" simulate pump-inspection --count 30 --seed 2026 --submit
step "mi export hydrant-inspection --format geojson --output hydrants.geojson   (one Point per form, [longitude, latitude, altitude])"
as fiona "$mi" export hydrant-inspection --format geojson --output "$work/hydrants.geojson"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f=d["features"]; print(len(f), "features; the first at", f[0]["geometry"]["coordinates"])' "$work/hydrants.geojson"
step "mi upload --all   (the real forms; simulated ones are skipped)"
as fiona "$mi" upload --all 2>&1 | tail -5
step "mi upload ana/sim-2026-1 … ana/sim-2026-30 ana/sim-12-1 … ana/sim-12-12   (named, simulated forms go too: the demo's server has Server.AcceptSimulated)"
as fiona "$mi" upload $(for n in $(seq 1 30); do printf 'ana/sim-2026-%d ' "$n"; done) $(for n in $(seq 1 12); do printf 'ana/sim-12-%d ' "$n"; done) | tail -1
step "the server's own scores of ipaq-ana, computed again from the answers on upload (GET /api/v1/submissions/{id})"
ipaq=$(grep -l '"name" *: *"ipaq-ana"' "$work/server-data/submissions/"*/form.json | head -1)
token=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["serverToken"])' "$work/state/fiona/mi/session.json" 2>/dev/null || true)
curl -s -H "Authorization: Bearer $token" "http://127.0.0.1:$MI_DEMO_PORT/api/v1/submissions/$(basename "$(dirname "$ipaq")")" \
  | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin).get("scores"), sort_keys=True))' || true
step "what mi-server stored: DataDirectory/submissions/<form id>/"
echo "$(ls -d "$work/server-data/submissions/"*/ | wc -l) submissions; pump-7's folder:"
pump7=$(grep -l '"name" *: *"pump-7"' "$work/server-data/submissions/"*/form.json | head -1)
ls "$(dirname "$pump7")"
step "bob logs in again and is told about the reassignment"
echo bob-password | as bob "$mi" login --user bob --password-stdin
if [ ${#server_logs[@]} -eq 1 ]; then
  step "the server log"
  grep -E "POST|GET" "$work/server.log" | tail -6 || true
else
  step "which mi-server stored what (their logs: nginx took turns between them)"
  for n in "${!server_logs[@]}"; do
    ids=$(grep "submission stored" "${server_logs[$n]}" | grep -o ' id=[0-9a-fA-F-]*' | cut -d= -f2 || true)
    names=$(for id in $ids; do
      python3 -c 'import json,sys; f=json.load(open(sys.argv[1])); print("%s/%s" % (f["user"], f["name"]))' \
        "$work/server-data/submissions/$id/form.json" 2>/dev/null || echo "$id"
    done | sort -V | paste -sd ' ')
    echo "mi-server $((n + 1)) (port ${stack_ports[$n]}): $(echo "$ids" | grep -c . || true) submissions stored:"
    echo "$names" | fold -s -w 100 | sed 's/^/  /'
  done
fi

[ -n "${OFFICE:-}" ] && [ "${OFFICE}" != 0 ] || exit 0
# The office: the same mi-server, left running. stack.sh's EXIT trap stops it and slapd and
# removes the work folder; Ctrl-C (or a TERM) ends the wait and so runs that trap.
trap 'echo; echo "stopping mi-server and slapd"; exit 0' INT TERM
office="http://127.0.0.1:$MI_DEMO_PORT"
submission=$(grep -l '"name" *: *"pump-7"' "$work/server-data/submissions/"*/form.json 2>/dev/null | head -1 || true)
printf '\n\033[1mThe office is open at %s\033[0m\n' "$office/"
echo "  sign in as fiona / fiona-password (a foreman; ana / ana-password sees only her own forms)"
[ -z "$submission" ] || echo "  pump-7 with its photo, video and audio: $office/submissions/$(basename "$(dirname "$submission")")"
echo "  statistics of pump-inspection (pump-7 and 30 simulated forms): $office/templates/pump-inspection/stats"
echo "  the hydrants on a plot, their dates and ratings: $office/templates/hydrant-inspection/stats"
mmse=$(grep -l '"name" *: *"mmse-ana"' "$work/server-data/submissions/"*/form.json 2>/dev/null | head -1 || true)
[ -z "$mmse" ] || echo "  ana's MMSE with its pictures, consent and scores: $office/submissions/$(basename "$(dirname "$mmse")")"
echo "  mi-server keeps running until Ctrl-C"
wait "$server_pid"
