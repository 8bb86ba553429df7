#!/usr/bin/env bash
# `make deb`: the Debian packages mi and mi-server from the release build, with dpkg-deb, into
# .build/deb/. Each package is staged by scripts/install.sh (PREFIX=/usr); its Depends are the
# Debian packages of the shared libraries its binaries load (readelf and ldd, then dpkg -S), so what the
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

# The packages owning the libraries the given binaries load themselves (their NEEDED entries, as
# dpkg-shlibdeps reads them; what those load in turn is their packages' business), "a, b, c".
depends() {
  local packages=()
  for binary in "$@"; do
    local needed
    needed=$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    for name in $needed; do
      local library owner
      library=$(ldd "$binary" | awk -v name="$name" '$1 == name && $3 ~ /^\// { print $3; exit }
        $1 ~ "/" name "$" { print $1; exit }')
      [ -n "$library" ] || { echo "deb: $binary needs $name, which ldd does not find" >&2; exit 1; }
      # Debian 12 merges /usr: dpkg may know /lib/… as /usr/lib/… or the other way round.
      owner=$(dpkg -S "$library" 2>/dev/null || dpkg -S "/usr$library" 2>/dev/null \
        || dpkg -S "${library#/usr}" 2>/dev/null || dpkg -S "$(realpath "$library")" 2>/dev/null || true)
      owner=${owner%%:*}
      [ -n "$owner" ] || { echo "deb: no Debian package owns $library ($name, needed by $binary)" >&2; exit 1; }
      packages+=("$owner")
    done
  done
  printf '%s\n' "${packages[@]}" | sort -u | paste -sd, | sed 's/,/, /g'
}

package() {
  local name=$1 description=$2 extra_depends=$3; shift 3
  local stage=$out/$name
  PACKAGES=$name PREFIX=/usr DESTDIR=$PWD/$stage BUILD=$BUILD bash scripts/install.sh >/dev/null
  local binaries=()
  for binary in "$@"; do binaries+=("$stage/usr/bin/$binary"); done
  # As Debian's packages are: without the symbol tables (a third of mi's size).
  strip --strip-unneeded "${binaries[@]}"
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
