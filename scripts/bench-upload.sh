#!/usr/bin/env bash
# Benchmark: `mi upload` of one form with 1 GiB of media to mi-server on loopback, against
# `curl -F` posting the same parts to the same endpoint with the same token, alternated,
# RUNS each. Wall time and peak RSS of each client (/usr/bin/time), and mi-server's peak RSS
# (VmHWM) over the whole run. Every run after the first is the identical retry of the same form,
# which the server streams, hashes and recognises in full.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${MI_BIN_DIR:-$here/.build/release}"
runs="${RUNS:-3}" size_mib="${SIZE_MIB:-1024}"
[ -x "$bin/mi" ] && [ -x "$bin/mi-server" ] || { echo "build first: make release" >&2; exit 1; }
work="$(mktemp -d /tmp/mi-bench-upload.XXXXXX)"
server_pid=
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
            bash "$here/scripts/slapd-test.sh" stop "$work/slapd" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
eval "$(bash "$here/scripts/slapd-test.sh" start "$work/slapd" 2>/dev/null)"
export MI_DEMO_PORT=$((20000 + RANDOM % 40000)) MI_DEMO_TEMPLATES="$here/Samples/templates" MI_DEMO_DATA="$work/server-data"
bash "$here/scripts/demo-config.sh" "$work/Config.plist" "$work/Documents"
python3 - "$work/Config.plist" <<'PY'
import plistlib, sys
p = sys.argv[1]; c = plistlib.load(open(p, "rb")); c["Server"]["MaxUploadBytes"] = 4 << 30
plistlib.dump(c, open(p, "wb"))
PY
export MI_CONFIG="$work/Config.plist"
"$bin/mi-server" --config "$MI_CONFIG" 2> "$work/server.log" &
server_pid=$!
for _ in $(seq 100); do grep -q "listening on" "$work/server.log" 2>/dev/null && break; sleep 0.1; done
as() { XDG_STATE_HOME="$work/state/$1" "${@:2}"; }
echo ana-password | as ana "$bin/mi" login --user ana --password-stdin >/dev/null
echo fiona-password | as fiona "$bin/mi" login --user fiona --password-stdin >/dev/null
as ana "$bin/mi" templates >/dev/null
as ana "$bin/mi" new extinguisher-check --name big >/dev/null
printf '{"location": "Hall B", "pressure-ok": true, "seal": ["Intact"], "weight": 6}' > "$work/a.json"
as ana "$bin/mi" answer big --file "$work/a.json" >/dev/null
head -c $((size_mib << 20)) /dev/urandom > "$work/big.mp4"
as ana "$bin/mi" attach big location "$work/big.mp4" >/dev/null
as ana "$bin/mi" submit big >/dev/null
folder="$work/Documents/CompletedMIs/ana/big"
# One failed attempt against a closed port writes the "uploaded" audit event, so every run sends the same bytes.
kill -STOP "$server_pid"; as fiona timeout 5 "$bin/mi" upload ana/big >/dev/null 2>&1 || true; kill -CONT "$server_pid"
cp -al "$folder" "$work/keep"
token=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["serverToken"])' "$work/state/fiona/mi/session.json")
url="http://127.0.0.1:$MI_DEMO_PORT/api/v1/submissions"
: > "$work/times"
for run in $(seq "$runs"); do
  rm -rf "$folder"; mkdir -p "$(dirname "$folder")"; cp -al "$work/keep" "$folder"
  /usr/bin/time -f "mi %e %M" -a -o "$work/times" env XDG_STATE_HOME="$work/state/fiona" "$bin/mi" upload ana/big >/dev/null
  /usr/bin/time -f "curl %e %M" -a -o "$work/times" curl -sS -o /dev/null --fail -H "Authorization: Bearer $token" \
    -F "form=@$work/keep/form.json;type=application/json" -F "Qid0(1).mp4=@$work/keep/Qid0(1).mp4;filename=Qid0(1).mp4" "$url"
done
server_hwm=$(awk '/VmHWM/ {print $2}' "/proc/$server_pid/status")
python3 - "$work/times" "$server_hwm" "$size_mib" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and l.split()[0] in ("mi", "curl")]
t = {k: [float(r[1]) for r in rows if r[0] == k] for k in ("mi", "curl")}
m = {k: [int(r[2]) for r in rows if r[0] == k] for k in ("mi", "curl")}
mi, cu = statistics.median(t["mi"]), statistics.median(t["curl"])
print(f"{sys.argv[3]} MiB, runs {len(t['mi'])}: median wall mi upload {mi:.2f} s, curl -F {cu:.2f} s, ratio {mi/cu:.2f}")
print(f"peak RSS: mi {max(m['mi'])/1024:.1f} MiB, curl {max(m['curl'])/1024:.1f} MiB, mi-server {int(sys.argv[2])/1024:.1f} MiB")
PY
