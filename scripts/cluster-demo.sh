#!/usr/bin/env bash
# `make demo-cluster`: the demo's flow (scripts/demo.sh) against several mi-servers, on loopback:
# a throwaway PostgreSQL (scripts/postgres-test.sh), two mi-servers sharing one data directory
# and one Server.SigningKeyFile, and nginx in front of them with the configuration the README
# recommends (scripts/nginx-test.sh). Every `mi` command and the office go through nginx; at
# the end each mi-server's log says which submissions it stored. Everything is stopped and
# removed on exit (KEEP=1 keeps the files). MI_BIN_DIR picks the binaries (release or debug).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
[ -x /usr/sbin/nginx ] || { echo "nginx is missing: make setup (Debian's nginx-light)" >&2; exit 1; }
ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || { echo "PostgreSQL is missing: make setup (Debian's postgresql)" >&2; exit 1; }
MI_STACK_DB=cluster exec bash "$here/scripts/demo.sh"
