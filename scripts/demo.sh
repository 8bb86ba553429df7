#!/usr/bin/env bash
# The technician's job end to end on the shipped sample data, against a throwaway directory:
# a real slapd with sample users, a real login, templates into the cache, a form filled
# question by question (piped answers), a photo attached, the review, the submission.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
mi="${MI_BINARY:-$here/.build/debug/mi}"
[ -x "$mi" ] || { echo "build first: make build" >&2; exit 1; }

work="$(mktemp -d /tmp/mi-demo.XXXXXX)"
cleanup() { bash "$here/scripts/slapd-test.sh" stop "$work/slapd" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
eval "$(bash "$here/scripts/slapd-test.sh" start "$work/slapd" 2>/dev/null)"
bash "$here/scripts/demo-config.sh" "$work/Config.plist" "$work/Documents"
export MI_CONFIG="$work/Config.plist" XDG_STATE_HOME="$work/state"
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

step mi config check
"$mi" config check

step "mi login --user ana   (directory: slapd at $LDAP_TEST_URL; password piped in)"
echo ana-password | "$mi" login --user ana --password-stdin
step mi whoami
"$mi" whoami

step mi templates import Samples/templates
"$mi" templates import "$here/Samples/templates"
step mi templates
"$mi" templates

step mi new pump-inspection --name pump-7
"$mi" new pump-inspection --name pump-7

step "mi fill pump-7   (answers piped in; :c adds a comment, :x saves and exits)"
printf '%s\n' yes 2 1 "1,3" 12.5 1200 60 2.1 58 1.9 65 ":c Bolt on the guard replaced" "" ":x" | "$mi" fill pump-7

step mi attach pump-7 leaks Samples/media/gauge.jpg
"$mi" attach pump-7 leaks "$here/Samples/media/gauge.jpg"

step mi review pump-7
COLUMNS=120 "$mi" review pump-7

step mi submit pump-7
"$mi" submit pump-7

step mi list
"$mi" list

step "mi logout; mi login --user fiona   (a foreman)"
"$mi" logout
echo fiona-password | "$mi" login --user fiona --password-stdin
step mi users
"$mi" users

step "find Documents"
(cd "$work" && find Documents -not -name .lock | sort)
