#!/usr/bin/env bash
# `make package-test` (run by `make test`): builds the Debian packages (make deb), installs them
# with dpkg -i, and checks the installed files: `mi --version`, `man mi`, `man mi-server` and
# `man mi-report`, the completions, the mi-server user, and `systemd-analyze verify` on the unit.
# Then removes them again (dpkg -r). Needs root: CI runs as root on a throwaway machine.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
  echo "package-test: installs packages with dpkg -i, so it needs root (CI runs it as root)" >&2
  exit 1
fi
for package in mi mi-server; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  if [ -n "$status" ] && [ "$status" != "unknown ok not-installed" ] && [ "$status" != "deinstall ok config-files" ]; then
    echo "package-test: $package is already installed on this machine — remove it first (dpkg -r $package)" >&2
    exit 1
  fi
done

failures=0
check() {  # check DESCRIPTION COMMAND...: runs it, reports FAIL with its output when it fails
  local description=$1; shift
  local output
  if output=$("$@" 2>&1); then
    echo "ok: $description"
  else
    echo "FAIL: $description"; printf '%s\n' "$output" | sed 's/^/    /'
    failures=$((failures + 1))
  fi
}
expect() {  # expect DESCRIPTION PATTERN COMMAND...: the command succeeds and prints PATTERN
  local description=$1 pattern=$2; shift 2
  local output
  if output=$("$@" 2>&1) && grep -qE -- "$pattern" <<<"$output"; then
    echo "ok: $description"
  else
    echo "FAIL: $description (wanted /$pattern/)"; printf '%s\n' "$output" | head -20 | sed 's/^/    /'
    failures=$((failures + 1))
  fi
}

remove() { dpkg -r mi-server mi >/dev/null 2>&1 || true; }
trap remove EXIT

bash scripts/deb.sh
version=$(.build/release/mi --version)
arch=$(dpkg --print-architecture)
DEBIAN_FRONTEND=noninteractive dpkg -i ".build/deb/mi_${version}_${arch}.deb" ".build/deb/mi-server_${version}_${arch}.deb"

expect "installed mi --version prints $version" "^$version\$" /usr/bin/mi --version
expect "mi and mi-report are on PATH in /usr/bin" "^/usr/bin/mi-report\$" bash -c 'command -v mi-report'
export MANPAGER=cat MANWIDTH=100
expect "man mi shows mi's manual with its subcommands" "fill +Fill a form question by question" man mi
expect "man mi-server shows the --config option" "\-\-config" man mi-server
expect "man mi-report shows its synopsis" "mi-report FORM_FOLDER OUTPUT.pdf" man mi-report
expect "installed mi-report --help" "USAGE: mi-report" /usr/bin/mi-report --help
expect "installed mi-server --help" "USAGE: mi-server" /usr/bin/mi-server --help
expect "bash completion of mi is installed" "_mi\(\)|complete .*mi" cat /usr/share/bash-completion/completions/mi
expect "zsh completion of mi is installed" "#compdef mi" cat /usr/share/zsh/vendor-completions/_mi
expect "fish completion of mi is installed" "complete -c '?mi'? " cat /usr/share/fish/vendor_completions.d/mi.fish
expect "the installed bash completion offers mi's subcommands" "^upload$" bash -c \
  'source /usr/share/bash-completion/completions/mi; COMP_WORDS=(mi ""); COMP_CWORD=1; COMP_LINE="mi "; COMP_POINT=3; _mi; printf "%s\n" "${COMPREPLY[@]}"'
expect "the example Config.plist is installed and valid" "\"Server\"" \
  python3 -c 'import plistlib, json; print(json.dumps(plistlib.load(open("/usr/share/doc/mi/examples/Config.plist", "rb"))))'
expect "the server's example Config.plist keeps its data in /var/lib/mi-server" "/var/lib/mi-server/data" \
  cat /usr/share/doc/mi-server/examples/Config.plist
expect "the mi-server system user exists" "^mi-server:" getent passwd mi-server
expect "the unit is installed with ExecReload sending SIGHUP" 'ExecReload=/bin/kill -HUP \$MAINPID' \
  cat /usr/lib/systemd/system/mi-server.service
check "systemd-analyze verify accepts mi-server.service" systemd-analyze verify /usr/lib/systemd/system/mi-server.service
# The installed binary runs without the build: it checks a configuration and stops with 78 on a
# missing one, naming it.
expect "installed mi-server names a missing configuration" "/nonexistent/Config.plist" \
  bash -c '/usr/bin/mi-server --config /nonexistent/Config.plist; [ $? = 78 ]'

dpkg -r mi-server mi >/dev/null
check "dpkg -r removes the binaries" test ! -e /usr/bin/mi -a ! -e /usr/bin/mi-server -a ! -e /usr/bin/mi-report
trap - EXIT
if [ $failures -gt 0 ]; then
  echo "package-test: $failures check(s) failed" >&2
  exit 1
fi
echo "package-test: the packages install, run and remove"
