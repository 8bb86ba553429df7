#!/usr/bin/env bash
# Benchmark: `mi login` (service bind, user search, user bind, foreman-group check, session
# written) against OpenLDAP's own clients doing the same binds and searches on the same slapd:
# `ldapsearch` (service bind + user search) + `ldapwhoami` (user bind) + `ldapsearch`
# (service bind + group read). Median wall time (hyperfine, alternating runs).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
mi="${MI_BINARY:-$here/.build/release/mi}"
runs="${RUNS:-30}"
[ -x "$mi" ] || { echo "build first: swift build -c release" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }

work="$(mktemp -d /tmp/mi-bench-login.XXXXXX)"
trap 'bash "$here/scripts/slapd-test.sh" stop "$work/slapd" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
eval "$(bash "$here/scripts/slapd-test.sh" start "$work/slapd" 2>/dev/null)"
bash "$here/scripts/demo-config.sh" "$work/Config.plist" "$work/Documents"
export MI_CONFIG="$work/Config.plist" XDG_STATE_HOME="$work/state" LDAPNOINIT=1
printf fiona-password > "$work/pw"   # ldap clients read -y files whole, newline included
echo fiona-password | "$mi" login --user fiona --password-stdin >/dev/null   # creates the store once

clients="ldapsearch -x -LLL -H '$LDAP_TEST_URL' -D '$LDAP_TEST_BIND_DN' -y '$LDAP_TEST_BIND_PASSWORD_FILE' \
  -b '$LDAP_TEST_BASE' '(&(objectClass=inetOrgPerson)(uid=fiona))' uid cn displayName > /dev/null \
 && ldapwhoami -x -H '$LDAP_TEST_URL' -D 'uid=fiona,ou=people,dc=example,dc=test' -y '$work/pw' > /dev/null \
 && ldapsearch -x -LLL -H '$LDAP_TEST_URL' -D '$LDAP_TEST_BIND_DN' -y '$LDAP_TEST_BIND_PASSWORD_FILE' \
  -b '$LDAP_TEST_FOREMAN_GROUP' -s base member > /dev/null"

hyperfine --warmup 3 --runs "$runs" --export-json "$work/hyperfine.json" \
  -n "mi login" "'$mi' login --user fiona --password-stdin < '$work/pw' > /dev/null" \
  -n "ldapsearch + ldapwhoami + ldapsearch" "$clients"
python3 - "$work/hyperfine.json" <<'PY'
import json, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
mi, base = r["mi login"], r["ldapsearch + ldapwhoami + ldapsearch"]
print(f"median wall: mi login {mi*1000:.1f} ms, ldap clients {base*1000:.1f} ms, ratio {mi/base:.2f}")
PY
