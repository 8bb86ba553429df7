#!/usr/bin/env bash
# Benchmark (issue 27): `mi-server backup` of FORMS stored submissions with MEDIA_MIB MiB of
# media against `tar -cf - DATADIR | cat > /dev/null` of the same data folder, and
# `mi-server restore` of the archive into an empty data folder against `tar -xf` of a tar of the
# data folder (and `tar -xf` + `sync`, since restore syncs what it wrote before making it live).
# Alternated, RUNS each, medians; the page cache is warm for both sides alike.
#
# The data: a release mi-server on SQLite (scripts/stack.sh) stores one real upload of `mi`
# (a completed extinguisher check with a photo); Python's sqlite3 then clones it into FORMS
# submissions — each a new id, its photo MEDIA_MIB/FORMS MiB of random bytes, its rows as an
# upload writes them (the summary is left for the restore to compute from form.json).
#
#   swift build -c release --product mi --product mi-server
#   FORMS=10000 MEDIA_MIB=5120 RUNS=3 bash scripts/bench-backup.sh      # the issue's size
#   RESTORE=0 …   measures the backup only (a restore of 5 GiB onto a slow disk takes minutes)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${MI_BIN_DIR:-$here/.build/release}"
forms="${FORMS:-10000}" media_mib="${MEDIA_MIB:-5120}" runs="${RUNS:-3}" restore="${RESTORE:-1}"
[ -x "$bin/mi" ] && [ -x "$bin/mi-server" ] || { echo "build first: swift build -c release --product mi --product mi-server" >&2; exit 1; }
work="$(mktemp -d /tmp/mi-bench-backup.XXXXXX)"
. "$here/scripts/stack.sh"

start_server
echo ana-password | as ana "$bin/mi" login --user ana --password-stdin >/dev/null
echo fiona-password | as fiona "$bin/mi" login --user fiona --password-stdin >/dev/null
as ana "$bin/mi" templates >/dev/null
printf '{"location": "Hall B", "pressure-ok": true, "seal": ["Intact"], "weight": 6}' > "$work/a.json"
as ana "$bin/mi" new extinguisher-check --name seed >/dev/null
as ana "$bin/mi" answer seed --file "$work/a.json" >/dev/null
as ana "$bin/mi" attach seed seal "$here/Samples/media/gauge.jpg" >/dev/null
as ana "$bin/mi" submit seed >/dev/null
as fiona "$bin/mi" upload ana/seed >/dev/null
stop_server

python3 - "$work/server-data" "$forms" "$media_mib" <<'PY'
import hashlib, os, sqlite3, sys, uuid
data, forms, media_mib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
db = sqlite3.connect(os.path.join(data, "mi-server.sqlite"))
db.execute("PRAGMA synchronous = OFF")
(seed,) = db.execute("SELECT id FROM submission").fetchone()
columns = [row[1] for row in db.execute("PRAGMA table_info(submission)") if row[1] not in ("seq", "id")]
parts = db.execute("SELECT name, filename FROM part WHERE submission_id = ? ORDER BY position", (seed,)).fetchall()
form = open(os.path.join(data, "submissions", seed, "form.json"), "rb").read()
size = (media_mib << 20) // forms
random = open("/dev/urandom", "rb")
for index in range(forms - 1):
    new = str(uuid.uuid4())
    folder = os.path.join(data, "submissions", new)
    os.makedirs(folder)
    raw = form.replace(seed.encode(), new.encode()).replace(seed.upper().encode(), new.upper().encode())
    db.execute(f"INSERT INTO submission (id, {', '.join(columns)}) SELECT ?, {', '.join(columns)} FROM submission WHERE id = ?",
               (new, seed))
    for position, (name, filename) in enumerate(parts):
        body = raw if filename == "form.json" else random.read(size)
        open(os.path.join(folder, filename), "wb").write(body)
        db.execute("INSERT INTO part (submission_id, position, name, filename, size, sha256) VALUES (?, ?, ?, ?, ?, ?)",
                   (new, position, name, filename, len(body), hashlib.sha256(body).hexdigest()))
db.commit()
PY
echo "data: $forms submissions, $(find "$work/server-data/submissions" -type f | wc -l) files, $(du -sh "$work/server-data" | cut -f1)"
start_server  # running, idle: the backup reads a live server's data folder
sync

target="$work/Restore.plist"
python3 - "$MI_CONFIG" "$target" "$work" <<'PY'
import plistlib, sys
c = plistlib.load(open(sys.argv[1], "rb"))
c["Server"]["DataDirectory"] = sys.argv[3] + "/restored-data"
c["Server"]["TemplatesDirectory"] = sys.argv[3] + "/restored-templates"
plistlib.dump(c, open(sys.argv[2], "wb"))
PY

now() { date +%s.%N; }
: > "$work/times"
if [ "$restore" = 0 ]; then
  "$bin/mi-server" backup --config "$MI_CONFIG" --output - 2> "$work/backup.log" | wc -c > "$work/archive.size"
else
  "$bin/mi-server" backup --config "$MI_CONFIG" --output "$work/archive.tar" 2> "$work/backup.log"
  stat -c %s "$work/archive.tar" > "$work/archive.size"
fi
cat "$work/backup.log"
[ "$restore" = 0 ] || tar -cf "$work/baseline.tar" -C "$work" server-data
# The machine may reclaim a page cache it considers cold (and the restores below fill it): each
# measured side reads the data folder once, untimed, just before, so both start warm.
warm() { tar -cf - -C "$work" server-data | cat > /dev/null; }
for run in $(seq "$runs"); do
  warm
  s=$(now); "$bin/mi-server" backup --config "$MI_CONFIG" --output - 2>/dev/null | cat > /dev/null; e=$(now)
  echo "backup $(echo "$e - $s" | bc)" >> "$work/times"
  warm
  s=$(now); tar -cf - -C "$work" server-data | cat > /dev/null; e=$(now)
  echo "tar-c $(echo "$e - $s" | bc)" >> "$work/times"
  if [ "$restore" != 0 ]; then
    rm -rf "$work/restored-data" "$work/restored-templates"; sync
    s=$(now); "$bin/mi-server" restore --config "$target" --from "$work/archive.tar" > "$work/restore.log"; e=$(now)
    echo "restore $(echo "$e - $s" | bc)" >> "$work/times"
    rm -rf "$work/x" && mkdir "$work/x"; sync
    s=$(now); tar -xf "$work/baseline.tar" -C "$work/x"; e=$(now)
    echo "tar-x $(echo "$e - $s" | bc)" >> "$work/times"
    rm -rf "$work/x" && mkdir "$work/x"; sync
    s=$(now); tar -xf "$work/baseline.tar" -C "$work/x"; sync; e=$(now)
    echo "tar-x+sync $(echo "$e - $s" | bc)" >> "$work/times"
  fi
done
[ "$restore" = 0 ] || cat "$work/restore.log"
python3 - "$work/times" "$(cat "$work/archive.size")" "$(du -sb "$work/server-data" | cut -f1)" <<'PY'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    kind, seconds = line.split()
    times.setdefault(kind, []).append(float(seconds))
m = {k: statistics.median(v) for k, v in times.items()}
print(f"archive {int(sys.argv[2]) / 1e9:.2f} GB, data folder {int(sys.argv[3]) / 1e9:.2f} GB; medians of {len(times['backup'])} runs:")
print(f"  tar -cf - | cat     {m['tar-c']:8.2f} s")
print(f"  mi-server backup    {m['backup']:8.2f} s   ratio {m['backup'] / m['tar-c']:.2f} (goal <= 1.3)")
if 'restore' not in m: sys.exit(0)
print(f"  tar -xf             {m['tar-x']:8.2f} s")
print(f"  tar -xf + sync      {m['tar-x+sync']:8.2f} s")
print(f"  mi-server restore   {m['restore']:8.2f} s   ratio {m['restore'] / m['tar-x']:.2f} to tar -xf (goal <= 1.5), "
      f"{m['restore'] / m['tar-x+sync']:.2f} to tar -xf + sync")
PY
