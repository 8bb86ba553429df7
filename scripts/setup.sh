#!/usr/bin/env bash
# Installs what MI's build, demo and tests need and are missing: Debian packages (as root) and
# the test-only Python packages. Run by `make demo`, `make test` and `.ci/run`; safe to run again.
# Not root and something missing: prints the exact command to run, and exits 1.
set -euo pipefail

# Debian packages, each with why.
packages=(
  make git util-linux pkg-config ca-certificates python3 python3-pip  # build tools; flock(1) for the lock tests
  libcurl4-openssl-dev curl openssl libsqlite3-dev                    # the CLI's transport; curl, openssl and SQLite for the server tests
  postgresql                                                          # mi-server on PostgreSQL: the tests start a throwaway one (scripts/postgres-test.sh)
  nginx-light                                                         # several mi-servers behind nginx: tests, demo, benchmark (scripts/nginx-test.sh)
  libldap2-dev slapd ldap-utils                                       # directory login (CLDAP) and the test and demo slapd
  libedit-dev                                                         # line editing in `mi fill` (CEdit)
  libxml2-dev                                                         # reading .xlsx parts, XLSForms (CLibXML2)
  libcairo2-dev libpango1.0-dev fonts-dejavu-core                     # PDF reports (CCairo)
  poppler-utils                                                       # reading the PDFs back in tests
  chromium chromium-driver                                            # the office's browser tests (headless, through Selenium)
  libreoffice-calc-nogui zip unzip                                    # exports: the CSV opened by LibreOffice, the zip against `zip -0 -r`
  gpsd gpsd-clients                                                   # locations: `mi` reads fixes from gpsd; the tests replay NMEA logs through gpsfake
  zbar-tools                                                          # barcodes: `mi` reads codes from photos with zbarimg
  man-db systemd                                                      # packaging: `man mi` and `systemd-analyze verify` on the installed packages (make package-test)
)
# Python packages the tests use as independent checkers, as PACKAGE or PACKAGE=MODULE when the
# module's name differs: icalendar reads `mi reminders`' calendars; schemathesis probes the live
# mi-server against openapi.yaml; selenium drives chromium through the office's pages; qrcode,
# python-barcode and pillow draw the QR codes and Code 128 barcodes that zbarimg reads back;
# elementpath (an XPath 1.0 implementation) is the oracle the form-logic expression engine is
# compared with (ExpressionOracleTests); openpyxl writes the workbooks MIXLSForm reads and reads
# back the ones it writes (Tests/MIXLSFormTests, scripts/bench-xlsx.sh); pyxform, the XLSForm converter
# ODK uses, is the oracle XLSForm import is compared with (XLSFormOracleTests, scripts/bench-xlsform.sh).
python_packages=(icalendar schemathesis selenium qrcode python-barcode=barcode pillow=PIL elementpath openpyxl pyxform)

if [ ! -x /opt/swift/usr/bin/swift ] && ! command -v swift >/dev/null 2>&1; then
  echo "setup: the Swift 6.3 toolchain is missing — install it in /opt/swift (swift.org's Debian 12 build)" >&2
  exit 1
fi

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$package")
done
missing_python=()
for entry in "${python_packages[@]}"; do
  package=${entry%%=*} module=${entry#*=}
  python3 -c "import $module" 2>/dev/null || missing_python+=("$package")
done
[ ${#missing[@]} -eq 0 ] && [ ${#missing_python[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
  echo "setup: missing packages; run as root:" >&2
  [ ${#missing[@]} -gt 0 ] && echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
  [ ${#missing_python[@]} -gt 0 ] && echo "  python3 -m pip install ${missing_python[*]}" >&2
  exit 1
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ${#missing_python[@]} -gt 0 ]; then
  echo "setup: installing Python ${missing_python[*]}" >&2
  # Debian's own Python refuses pip (PEP 668) without --break-system-packages, and cannot
  # upgrade a dependency apt installed (no RECORD file) without --ignore-installed.
  python3 -m pip install --quiet --root-user-action=ignore "${missing_python[@]}" 2>/dev/null \
    || python3 -m pip install --quiet --root-user-action=ignore --break-system-packages "${missing_python[@]}" 2>/dev/null \
    || python3 -m pip install --quiet --root-user-action=ignore --break-system-packages --ignore-installed "${missing_python[@]}"
fi
