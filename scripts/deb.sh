#!/usr/bin/env bash
# `make deb`: the Debian packages mi and mi-server from the release build, with dpkg-deb, into
# .build/deb/. Each package is staged by scripts/install.sh (PREFIX=/usr); its Depends are the
# Debian packages of the shared libraries its binaries load (ldd, then dpkg -S), so what the
# static Swift build still links from the system (libcurl, libldap, libedit, cairo, pango, …)
# comes with it.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-.build/release}
out=.build/deb
version=$("$BUILD/mi" --version)
architecture=$(dpkg --print-architecture)
rm -rf "$out"
mkdir -p "$out"

# The packages owning the libraries the given binaries load, "a, b, c".
depends() {
  local libraries
  libraries=$(ldd "$@" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u)
  local packages=()
  for library in $libraries; do
    # Debian 12 merges /usr: a library found under /lib is owned as /usr/lib, or the other way.
    local owner
    owner=$(dpkg -S "$library" 2>/dev/null || dpkg -S "$(realpath "$library")" 2>/dev/null \
      || dpkg -S "${library#/usr}" 2>/dev/null || dpkg -S "/usr$library" 2>/dev/null || true)
    owner=${owner%%:*}
    [ -n "$owner" ] || { echo "deb: no Debian package owns $library" >&2; exit 1; }
    packages+=("$owner")
  done
  printf '%s\n' "${packages[@]}" | sort -u | paste -sd, | sed 's/,/, /g'
}

package() {
  local name=$1 description=$2 extra_depends=$3; shift 3
  local stage=$out/$name
  PACKAGES=$name PREFIX=/usr DESTDIR=$PWD/$stage BUILD=$BUILD bash scripts/install.sh >/dev/null
  local binaries=()
  for binary in "$@"; do binaries+=("$stage/usr/bin/$binary"); done
  local dependencies
  dependencies=$(depends "${binaries[@]}")
  [ -n "$extra_depends" ] && dependencies="$dependencies, $extra_depends"
  install -d "$stage/DEBIAN" "$stage/usr/share/doc/$name"
  for script in postinst prerm postrm; do
    [ -f "packaging/$name.$script" ] && install -m 755 "packaging/$name.$script" "$stage/DEBIAN/$script"
  done
  cat > "$stage/DEBIAN/control" <<CONTROL
Package: $name
Version: $version
Architecture: $architecture
Maintainer: MI <mi@example.com>
Section: utils
Priority: optional
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: $dependencies
Homepage: https://mi.example.com
Description: $description
CONTROL
  cat >> "$stage/DEBIAN/control"
  dpkg-deb --root-owner-group --build "$stage" "$out/${name}_${version}_${architecture}.deb" >/dev/null
  echo "deb: $out/${name}_${version}_${architecture}.deb (Depends: $dependencies)"
}

package mi "maintenance-inspection forms at the command line, offline first" "" mi mi-report <<'TEXT'
 mi fills, reviews and submits maintenance-inspection forms on a technician's
 laptop, offline first, and uploads them to an office's mi-server; mi-report
 writes a form's printable PDF (mi print).
TEXT
package mi-server "MI's server: form templates, uploads and the office web app" "adduser" mi-server <<'TEXT'
 mi-server serves the form templates to mi, receives uploads with receipts and
 runs the office's web app, on SQLite or PostgreSQL, as the systemd service
 mi-server.service under its own system user.
TEXT
