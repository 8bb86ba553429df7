#!/usr/bin/env bash
# Benchmark: a release mi-server receiving SUBMISSIONS (1,000) submissions, each a form.json of
# its own form id plus one 100 KiB photo, posted as `curl -F` does to POST /api/v1/submissions by
# CLIENTS (8) concurrent clients (8 threads of one python3 process, each on its own keep-alive
# connection: a curl process per submission spends more CPU starting than the server spends
# storing, and this machine has 2 cores), RUNS times; submissions per second (median) beside
# the disk's synchronous-write rate in the server's data folder measured in the same run
# (`dd bs=4k oflag=dsync`: 4 KiB writes each followed by a sync, per second). Each submission
# must reach the disk before its receipt is sent, so it costs a few synced writes (the received
# files, their folders, the database commit): the dsync rate divided by a small number is the
# ceiling.
#
# DB picks the server side (scripts/stack.sh's MI_STACK_DB): sqlite (default), postgres (one
# mi-server on a throwaway PostgreSQL, made durable for the run: fsync, synchronous_commit and
# full_page_writes on, as a production server has them), or cluster (two mi-servers on that
# PostgreSQL sharing one data directory, behind nginx: the clients post to nginx). MODES="sqlite
# postgres cluster" runs the benchmark once per mode, one after the other, and prints their
# medians side by side.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${MI_BIN_DIR:-$here/.build/release}"
runs="${RUNS:-3}" count="${SUBMISSIONS:-1000}" clients="${CLIENTS:-8}" dd_count="${DD_COUNT:-1000}"
[ -x "$bin/mi" ] && [ -x "$bin/mi-server" ] || { echo "build first: make release" >&2; exit 1; }
if [ -n "${MODES:-}" ]; then
  summary="" out=$(mktemp /tmp/mi-bench-throughput-mode.XXXXXX)
  for mode in $MODES; do
    echo "== DB=$mode"
    DB=$mode MODES= bash "$0" | tee "$out"
    summary+="$(printf '%-9s' "$mode")$(sed -n 's/^median: //p' "$out")"$'\n'
  done
  rm -f "$out"
  echo "== medians ($count submissions from $clients clients, $runs runs each)"
  printf '%s' "$summary"
  exit 0
fi
work="$(mktemp -d /tmp/mi-bench-throughput.XXXXXX)"
MI_STACK_DB="${DB:-sqlite}"
. "$here/scripts/stack.sh"
if [ "$MI_STACK_DB" != sqlite ]; then
  # postgres-test.sh's server skips syncing (fast tests); here commits must reach the disk as
  # SQLite's do. All three settings take effect on a reload.
  for setting in "fsync = on" "synchronous_commit = on" "full_page_writes = on"; do
    PGPASSWORD=$(cat "$PG_TEST_PASSWORD_FILE") psql -X -q -h 127.0.0.1 -p "$PG_TEST_PORT" -U "$PG_TEST_USER" \
      -d "$PG_TEST_DATABASE" -c "ALTER SYSTEM SET $setting" >/dev/null
  done
  PGPASSWORD=$(cat "$PG_TEST_PASSWORD_FILE") psql -X -q -h 127.0.0.1 -p "$PG_TEST_PORT" -U "$PG_TEST_USER" \
    -d "$PG_TEST_DATABASE" -c "SELECT pg_reload_conf()" >/dev/null
fi
start_server
echo ana-password | as ana "$bin/mi" login --user ana --password-stdin >/dev/null
echo fiona-password | as fiona "$bin/mi" login --user fiona --password-stdin >/dev/null
as ana "$bin/mi" templates >/dev/null

# One valid form written by mi with a 100 KiB photo; every submission is a copy under a new id.
as ana "$bin/mi" new extinguisher-check --name photo >/dev/null
printf '{"location": "Hall B", "pressure-ok": true, "seal": ["Intact"], "weight": 6}' > "$work/a.json"
as ana "$bin/mi" answer photo --file "$work/a.json" >/dev/null
head -c 102400 /dev/urandom > "$work/photo.jpg"
as ana "$bin/mi" attach photo location "$work/photo.jpg" >/dev/null
as ana "$bin/mi" submit photo >/dev/null
folder="$work/Documents/CompletedMIs/ana/photo"
media=$(cd "$folder" && ls | grep -v '^form.json$')
python3 - "$folder/form.json" "$work/forms" $((runs * count)) <<'PY'
import json, os, sys, uuid
source, target, total = sys.argv[1], sys.argv[2], int(sys.argv[3])
raw = open(source, encoding="utf-8").read()
old = json.loads(raw)["id"]
for i in range(total):
    os.makedirs(f"{target}/{i}")
    with open(f"{target}/{i}/form.json", "w", encoding="utf-8") as f:
        f.write(raw.replace(old, str(uuid.uuid4()).upper()))
PY
# The client: the same multipart body `curl -F` sends (a form part, then the photo).
cat > "$work/client.py" <<'PY'
import http.client, os, sys, threading, uuid
port, token, forms, first, count, clients, photo = sys.argv[1:8]
first, count, clients = int(first), int(count), int(clients)
media = os.path.basename(photo)
photo_bytes = open(photo, "rb").read()
lock, next_index, codes = threading.Lock(), [first], []
def body(form):
    boundary = "------------------------" + uuid.uuid4().hex[:22]
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="form"; filename="form.json"\r\nContent-Type: application/json\r\n\r\n'.encode() + form,
        f'--{boundary}\r\nContent-Disposition: form-data; name="{media}"; filename="{media}"\r\nContent-Type: image/jpeg\r\n\r\n'.encode() + photo_bytes,
    ]
    return boundary, b"\r\n".join(parts) + f"\r\n--{boundary}--\r\n".encode()
def client():
    connection = http.client.HTTPConnection("127.0.0.1", int(port))
    while True:
        with lock:
            i = next_index[0]
            if i >= first + count: return
            next_index[0] += 1
        boundary, data = body(open(f"{forms}/{i}/form.json", "rb").read())
        connection.request("POST", "/api/v1/submissions", body=data, headers={
            "Authorization": f"Bearer {token}", "Content-Type": f"multipart/form-data; boundary={boundary}"})
        response = connection.getresponse()
        response.read()
        with lock: codes.append(response.status)
threads = [threading.Thread(target=client) for _ in range(clients)]
for t in threads: t.start()
for t in threads: t.join()
print("\n".join(map(str, codes)))
PY
token=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["serverToken"])' "$work/state/fiona/mi/session.json")
echo "each submission: form.json $(stat -c %s "$folder/form.json") bytes + $media $(stat -c %s "$folder/$media") bytes; $count submissions from $clients clients, $runs runs"

: > "$work/results"
for run in $(seq 0 $((runs - 1))); do
  # CPU seconds of the servers (utime + stime, in clock ticks), of nginx (its master and
  # workers) and of the clients (their rusage, through /usr/bin/time): on 2 cores shared by
  # all they bound the rate too.
  cpu_of() { local pid; for pid in "$@"; do awk '{print $14 + $15}' "/proc/$pid/stat"; done | awk '{s += $1} END {print s + 0}'; }
  server_cpu() { cpu_of "${server_pids[@]}"; }
  proxy_cpu() { if [ -n "${NGINX_TEST_PID:-}" ]; then cpu_of "$NGINX_TEST_PID" $(pgrep -P "$NGINX_TEST_PID"); else echo 0; fi; }
  cpu_before=$(server_cpu) proxy_before=$(proxy_cpu)
  start=$(date +%s.%N)
  /usr/bin/time -f "%U %S" -o "$work/client-cpu" \
    python3 "$work/client.py" "$MI_DEMO_PORT" "$token" "$work/forms" $((run * count)) "$count" "$clients" "$folder/$media" > "$work/codes"
  end=$(date +%s.%N)
  created=$(grep -c '^201$' "$work/codes" || true)
  [ "$created" -eq "$count" ] || { echo "run $run: $created of $count submissions answered 201: $(sort "$work/codes" | uniq -c | tr '\n' ' ')" >&2; exit 1; }
  server_seconds=$(echo "$(server_cpu) $cpu_before $(getconf CLK_TCK)" | awk '{printf "%.2f", ($1 - $2) / $3}')
  proxy_seconds=$(echo "$(proxy_cpu) $proxy_before $(getconf CLK_TCK)" | awk '{printf "%.2f", ($1 - $2) / $3}')
  client_seconds=$(awk '{printf "%.2f", $1 + $2}' "$work/client-cpu")
  # The disk's synced 4 KiB writes, in the same folder, right after.
  dd_out=$(dd if=/dev/zero of="$MI_DEMO_DATA/dd-dsync-test" bs=4k count="$dd_count" oflag=dsync 2>&1 | tail -1)
  rm -f "$MI_DEMO_DATA/dd-dsync-test"
  echo "run $start $end $server_seconds $proxy_seconds $client_seconds $dd_out" >> "$work/results"
done
stored=$(cat "${server_logs[@]}" | grep -c "submission stored" || true)
[ "$stored" -eq $((runs * count)) ] || { echo "the servers stored $stored of $((runs * count)) submissions" >&2; tail -5 "${server_logs[@]}" >&2; exit 1; }
if [ ${#server_logs[@]} -gt 1 ]; then
  echo "stored per mi-server: $(for log in "${server_logs[@]}"; do grep -c "submission stored" "$log" || true; done | paste -sd /)"
fi
python3 - "$work/results" "$count" "$dd_count" <<'PY'
import re, statistics, sys
count, dd_count = int(sys.argv[2]), int(sys.argv[3])
rates, writes, server, proxy, client = [], [], [], [], []
for line in open(sys.argv[1]):
    _, start, end, server_cpu, proxy_cpu, client_cpu, dd = line.split(" ", 6)
    wall = float(end) - float(start)
    rates.append(count / wall)
    server.append(float(server_cpu) / wall)
    proxy.append(float(proxy_cpu) / wall)
    client.append(float(client_cpu) / wall)
    seconds = float(re.search(r"copied, ([0-9.,e-]+) s", dd).group(1).replace(",", "."))
    writes.append(dd_count / seconds)
rate, disk = statistics.median(rates), statistics.median(writes)
print("submissions/s per run: " + ", ".join(f"{r:.0f}" for r in rates))
print("dd oflag=dsync 4 KiB writes/s per run: " + ", ".join(f"{w:.0f}" for w in writes))
print("CPU cores busy during the run, mi-server(s) / nginx / clients: "
      + ", ".join(f"{s:.2f} / {p:.2f} / {c:.2f}" for s, p, c in zip(server, proxy, client)))
print(f"median: {rate:.0f} submissions/s, disk {disk:.0f} synced writes/s, {disk / rate:.1f} synced writes per submission at that rate")
PY
