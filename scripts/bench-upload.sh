#!/usr/bin/env bash
# Benchmark: `mi upload` of one form with SIZE MiB of media to a release mi-server on loopback,
# against `curl -F` posting the same parts (form.json + the media file) to the same server with
# the same token, alternated, RUNS each, for each size in SIZES. Both clients store a new
# submission every run: mi-server is restarted on an empty data folder before each upload, and
# the page cache is written back first (sync), so no run pays for the one before. Wall
# time and peak RSS of each client (/usr/bin/time), mi-server's peak RSS (VmHWM) over all runs.
# mi sends the media resumably (it is over Server.ResumableThresholdBytes, 8 MiB by default):
# PATCHes streamed from the file, each with its CRC-32C, sized to about 2 s (1 to 32 MiB), then
# the commit. THRESHOLD=N sets Server.ResumableThresholdBytes (a huge N: the one-request path).
#
# Then the resume benchmark: a RESUME_MIB upload killed (SIGKILL) once the server holds half of
# it, run again; the bytes the second run sent, as a share of the file (`mi upload --json`).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${MI_BIN_DIR:-$here/.build/release}"
runs="${RUNS:-3}" sizes="${SIZES:-256 1024}" resume_mib="${RESUME_MIB:-1024}"
[ -x "$bin/mi" ] && [ -x "$bin/mi-server" ] || { echo "build first: make release" >&2; exit 1; }
work="$(mktemp -d /tmp/mi-bench-upload.XXXXXX)"
. "$here/scripts/stack.sh"
python3 - "$work/Config.plist" "${THRESHOLD:-}" <<'PY'
import plistlib, sys
p = sys.argv[1]; c = plistlib.load(open(p, "rb")); c["Server"]["MaxUploadBytes"] = 4 << 30
if len(sys.argv) > 2 and sys.argv[2]: c["Server"]["ResumableThresholdBytes"] = int(sys.argv[2])
plistlib.dump(c, open(p, "wb"))
PY
hwm=0
# mi-server's peak RSS is read before each stop.
stop_recording() {
  if [ -n "$server_pid" ]; then
    local now; now=$(awk '/VmHWM/ {print $2}' "/proc/$server_pid/status" 2>/dev/null || echo 0)
    [ "${now:-0}" -gt "$hwm" ] && hwm=$now
  fi
  stop_server
}
# A new mi-server on an empty data folder (same signing key, so tokens stay valid).
fresh_server() {
  stop_recording
  if [ -d "$work/server-data" ]; then
    find "$work/server-data" -mindepth 1 -maxdepth 1 ! -name signing.key -exec rm -rf {} +
  fi
  start_server
}
fresh_server
echo ana-password | as ana "$bin/mi" login --user ana --password-stdin >/dev/null
echo fiona-password | as fiona "$bin/mi" login --user fiona --password-stdin >/dev/null
as ana "$bin/mi" templates >/dev/null
printf '{"location": "Hall B", "pressure-ok": true, "seal": ["Intact"], "weight": 6}' > "$work/a.json"
token=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["serverToken"])' "$work/state/fiona/mi/session.json")
url="http://127.0.0.1:$MI_DEMO_PORT/api/v1/submissions"

# A completed form NAME of ana's with SIZE MiB of random media; a copy of it is kept in keep-NAME.
make_form() {
  local name=$1 size=$2
  as ana "$bin/mi" new extinguisher-check --name "$name" >/dev/null
  as ana "$bin/mi" answer "$name" --file "$work/a.json" >/dev/null
  head -c $((size << 20)) /dev/urandom > "$work/media.mp4"
  as ana "$bin/mi" attach "$name" location "$work/media.mp4" >/dev/null
  rm "$work/media.mp4"
  as ana "$bin/mi" submit "$name" >/dev/null
  cp -al "$work/Documents/CompletedMIs/ana/$name" "$work/keep-$name"
}
restore() { rm -rf "$work/Documents/CompletedMIs/ana/$1"; mkdir -p "$work/Documents/CompletedMIs/ana"; cp -al "$work/keep-$1" "$work/Documents/CompletedMIs/ana/$1"; }

: > "$work/times"
for size in $sizes; do
  name="bench-$size"
  make_form "$name" "$size"
  media=$(cd "$work/keep-$name" && ls | grep -v '^form.json$')
  for run in $(seq "$runs"); do
    restore "$name"; rm -rf "$work/state/fiona/mi/uploads"; fresh_server; sync
    /usr/bin/time -f "$size mi %e %M" -a -o "$work/times" env XDG_STATE_HOME="$work/state/fiona" "$bin/mi" upload "ana/$name" >/dev/null
    fresh_server; sync
    /usr/bin/time -f "$size curl %e %M" -a -o "$work/times" curl -sS -o /dev/null --fail -H "Authorization: Bearer $token" \
      -F "form=@$work/keep-$name/form.json;type=application/json" -F "$media=@$work/keep-$name/$media;filename=$media" "$url"
  done
  rm -rf "$work/keep-$name"
done

[ -n "${THRESHOLD:-}" ] && resume_mib=0  # resuming needs the resumable path
if [ "$resume_mib" -gt 0 ]; then
# Resume: killed once the server holds half the file, then run again.
fresh_server
make_form resume "$resume_mib"
restore resume
half=$(( (resume_mib << 20) / 2 ))
XDG_STATE_HOME="$work/state/fiona" "$bin/mi" upload ana/resume >/dev/null 2>&1 &
client=$!  # mi itself, not a subshell: the kill must reach it
held=0
while kill -0 "$client" 2>/dev/null; do
  held=$(find "$work/server-data/uploads" -name data -printf '%s\n' 2>/dev/null | sort -n | tail -1)
  [ "${held:-0}" -ge "$half" ] && break
  sleep 0.002
done
kill -9 "$client" 2>/dev/null || true; wait "$client" 2>/dev/null || true
if [ ! -d "$work/Documents/CompletedMIs/ana/resume" ]; then
  echo "the first upload finished before it could be killed (the server held ${held:-0} bytes when last looked at)" >&2; exit 1
fi
as fiona "$bin/mi" upload ana/resume --json > "$work/resume.json"
fi
stop_recording

python3 - "$work/times" "$hwm" "$work/resume.json" "$resume_mib" "${held:-0}" <<'PY'
import json, statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if len(l.split()) == 4 and l.split()[1] in ("mi", "curl")]
for size in sorted({int(r[0]) for r in rows}):
    t = {k: [float(r[2]) for r in rows if r[1] == k and int(r[0]) == size] for k in ("mi", "curl")}
    m = {k: [int(r[3]) for r in rows if r[1] == k and int(r[0]) == size] for k in ("mi", "curl")}
    mi, cu = statistics.median(t["mi"]), statistics.median(t["curl"])
    print(f"{size} MiB, runs {len(t['mi'])}: median wall mi upload {mi:.2f} s, curl -F {cu:.2f} s, ratio {mi/cu:.2f};"
          f" peak RSS mi {max(m['mi'])/1024:.1f} MiB, curl {max(m['curl'])/1024:.1f} MiB")
print(f"mi-server peak RSS over all runs: {int(sys.argv[2])/1024:.1f} MiB")
if int(sys.argv[4]) == 0: sys.exit(0)
form = json.load(open(sys.argv[3]))["forms"][0]
size = int(sys.argv[4]) << 20
print(f"resume of {sys.argv[4]} MiB killed with {int(sys.argv[5])/size:.0%} on the server: second run sent"
      f" {form['bytesSent']/size:.1%} of the file, found {form['bytesResumed']/size:.1%} already there,"
      f" in {form['seconds']:.2f} s (uploaded: {form['uploaded']})")
PY
