#!/usr/bin/env python3
"""Prints the example Config.plist of an installed mi-server: the repository's Config.plist with
the server's folders in its state directory (/var/lib/mi-server, the one the systemd unit lets
it write) and listening on every address. Run by scripts/install.sh."""
import plistlib
import sys

with open(sys.argv[1], "rb") as source:
    config = plistlib.load(source)
server = config["Server"]
server["Listen"] = "0.0.0.0:8443"
server["TemplatesDirectory"] = "/var/lib/mi-server/templates"
server["DataDirectory"] = "/var/lib/mi-server/data"
server["TLSCertificateFile"] = "/etc/mi/tls/fullchain.pem"
server["TLSKeyFile"] = "/etc/mi/tls/privkey.pem"
sys.stdout.buffer.write(plistlib.dumps(config, sort_keys=False))
