#!/usr/bin/env bash
# `make install`: installs the release build under DESTDIR + PREFIX where Debian looks for each
# file. PACKAGES picks what to install: mi (mi, mi-report, their manuals and completions, an
# example Config.plist) and mi-server (mi-server, its manual and completions, the systemd unit,
# its sysusers file, a server's example Config.plist and docs/installing.md); both by default.
# `make deb` runs it once per package (scripts/deb.sh).
#   PREFIX   /usr/local by default (/usr for the packages)
#   DESTDIR  a staging root, empty by default
#   BUILD    the release build folder, .build/release by default (`make release` fills it)
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
BUILD=${BUILD:-.build/release}
PACKAGES=${PACKAGES:-mi mi-server}

root=$DESTDIR$PREFIX
bindir=$PREFIX/bin
if [ "$PREFIX" = /usr ]; then zsh_dir=share/zsh/vendor-completions; else zsh_dir=share/zsh/site-functions; fi
version=$("$BUILD/mi" --version)
manuals=$(mktemp -d)
trap 'rm -rf "$manuals"' EXIT

for package in $PACKAGES; do
  case $package in
  mi) products="mi mi-report" ;;
  mi-server) products="mi-server" ;;
  *) echo "install: unknown package $package (mi or mi-server)" >&2; exit 64 ;;
  esac
  for product in $products; do
    [ -x "$BUILD/$product" ] || { echo "install: $BUILD/$product is missing — run make release" >&2; exit 1; }
  done
done

# The manual of an ArgumentParser command, from its own help: argument-parser's generate-manual
# tool (what its generate-manual plugin runs) reads `COMMAND --experimental-dump-help`.
manual() {
  local product=$1
  if [ "$product" = mi-report ]; then
    bash scripts/help-to-man.sh "$BUILD/$product" "$product" "$version" > "$manuals/$product.1"
  else
    "$(bash scripts/generate-manual-tool.sh)" "$BUILD/$product" --output-directory "$manuals" \
      --date "$(date -u -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}" +%Y-%m-%d)"
  fi
  [ -s "$manuals/$product.1" ] || { echo "install: no manual made for $product" >&2; exit 1; }
  install -d "$root/share/man/man1"
  gzip -9n < "$manuals/$product.1" > "$root/share/man/man1/$product.1.gz"
  chmod 644 "$root/share/man/man1/$product.1.gz"
}

# bash, zsh and fish completions, written by the command itself (argument-parser).
completions() {
  local product=$1
  install -d "$root/share/bash-completion/completions" "$root/$zsh_dir" "$root/share/fish/vendor_completions.d"
  "$BUILD/$product" --generate-completion-script bash > "$root/share/bash-completion/completions/$product"
  "$BUILD/$product" --generate-completion-script zsh > "$root/$zsh_dir/_$product"
  "$BUILD/$product" --generate-completion-script fish > "$root/share/fish/vendor_completions.d/$product.fish"
}

for package in $PACKAGES; do
  case $package in
  mi)
    install -d "$root/bin" "$root/share/doc/mi/examples"
    install -m 755 "$BUILD/mi" "$BUILD/mi-report" "$root/bin/"
    manual mi
    manual mi-report
    completions mi
    install -m 644 Config.plist "$root/share/doc/mi/examples/Config.plist"
    ;;
  mi-server)
    install -d "$root/bin" "$root/share/doc/mi-server/examples" "$root/lib/systemd/system" "$root/lib/sysusers.d"
    install -m 755 "$BUILD/mi-server" "$root/bin/"
    manual mi-server
    completions mi-server
    sed "s|@BINDIR@|$bindir|g" packaging/mi-server.service.in > "$root/lib/systemd/system/mi-server.service"
    chmod 644 "$root/lib/systemd/system/mi-server.service"
    install -m 644 packaging/mi-server.sysusers "$root/lib/sysusers.d/mi-server.conf"
    python3 scripts/server-config-example.py Config.plist > "$root/share/doc/mi-server/examples/Config.plist"
    chmod 644 "$root/share/doc/mi-server/examples/Config.plist"
    install -m 644 docs/installing.md "$root/share/doc/mi-server/installing.md"
    ;;
  esac
done
echo "install: $PACKAGES $version in $root"
