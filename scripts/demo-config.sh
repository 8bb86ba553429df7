#!/usr/bin/env bash
# Writes a Config.plist for the demo and the benchmarks: the shipped Config.plist with its
# store, directory and server pointed at throwaway local ones.
#   scripts/demo-config.sh OUT.plist DOCUMENTS    (LDAP_TEST_* from scripts/slapd-test.sh when set)
# The server's keys come from MI_DEMO_PORT, MI_DEMO_TEMPLATES and MI_DEMO_DATA when set, and
# optionally MI_DEMO_GPSD (Location.GPSD), MI_DEMO_LISTEN_PORT, MI_DEMO_DATABASE, MI_DEMO_DATABASE_PASSWORD_FILE,
# MI_DEMO_SIGNING_KEY_FILE, MI_DEMO_MAX_CONNECTIONS and MI_DEMO_TRUSTED_PROXY (see scripts/stack.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out=$1 documents=$2
python3 - "$here/Config.plist" "$out" "$documents" <<'PY'
import os, plistlib, sys
source, out, documents = sys.argv[1:4]
with open(source, "rb") as f:
    config = plistlib.load(f)
config["Documents"] = documents
env = os.environ
if env.get("MI_DEMO_PORT"):
    port = int(env["MI_DEMO_PORT"])
    # Behind a proxy mi-server listens elsewhere than the port clients are given.
    listen = int(env.get("MI_DEMO_LISTEN_PORT") or port)
    config["Server"].update({"Scheme": "http", "Domain": "127.0.0.1", "Port": port, "Listen": "127.0.0.1:%d" % listen,
                             "TemplatesDirectory": env["MI_DEMO_TEMPLATES"], "DataDirectory": env["MI_DEMO_DATA"],
                             # The demo fills the statistics page with `mi simulate`'s forms.
                             "AcceptSimulated": True})
    for key, variable, kind in [("Database", "MI_DEMO_DATABASE", str),
                                ("DatabasePasswordFile", "MI_DEMO_DATABASE_PASSWORD_FILE", str),
                                ("SigningKeyFile", "MI_DEMO_SIGNING_KEY_FILE", str),
                                ("MaxConnectionsPerAddress", "MI_DEMO_MAX_CONNECTIONS", int)]:
        if env.get(variable):
            config["Server"][key] = kind(env[variable])
    if env.get("MI_DEMO_TRUSTED_PROXY"):
        config["Server"]["TrustedProxies"] = [env["MI_DEMO_TRUSTED_PROXY"]]
if env.get("MI_DEMO_GPSD"):
    config.setdefault("Location", {})["GPSD"] = env["MI_DEMO_GPSD"]
if env.get("LDAP_TEST_URL"):
    config["LDAP"].update({
        "URL": env["LDAP_TEST_URL"], "StartTLS": False, "BaseDN": env["LDAP_TEST_BASE"],
        "BindDN": env["LDAP_TEST_BIND_DN"], "BindPasswordFile": env["LDAP_TEST_BIND_PASSWORD_FILE"],
        "ForemanGroup": env["LDAP_TEST_FOREMAN_GROUP"], "GroupMemberAttribute": "member", "TimeoutSeconds": 5,
    })
with open(out, "wb") as f:
    plistlib.dump(config, f)
PY
