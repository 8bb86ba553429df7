#!/usr/bin/env bash
# Throwaway PostgreSQL server (Debian's `postgresql` package) for mi-server's tests and demos.
#
#   scripts/postgres-test.sh start [DIR] [--tls]   initdb in DIR, start on 127.0.0.1 (free port)
#   scripts/postgres-test.sh stop DIR              stop it and delete DIR
#
# start prints shell `export` lines on stdout (eval them); everything else goes to stderr:
#   PG_TEST_URL (postgres://mi@127.0.0.1:PORT/mi, the `Server.Database` value), PG_TEST_PORT,
#   PG_TEST_PID, PG_TEST_DIR, PG_TEST_USER (mi), PG_TEST_DATABASE (mi),
#   PG_TEST_PASSWORD_FILE (the `Server.DatabasePasswordFile` value: the user's password).
# The cluster lives in DIR/data with its socket in DIR/socket: never the system's clusters.
# PostgreSQL refuses to run as root, so as root (CI) the server runs as the `postgres` user the
# package creates (or `nobody`), and DIR belongs to that user; as anyone else it runs as them.
# TCP connections must give the password (scram-sha-256). --tls turns on SSL with a
# self-signed certificate, for `?sslmode=require`.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test-service-lib.sh
source "$here/test-service-lib.sh"
marker=.postgres-test
user=mi
database=mi

die() { echo "postgres-test: $*" >&2; exit 1; }
usage() { die "usage: $0 start [DIR] [--tls] | stop DIR"; }

bindir() {
    local dir
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        [[ -x $dir/initdb && -x $dir/pg_ctl ]] && { echo "$dir"; return 0; }
    done
    die "PostgreSQL not found in /usr/lib/postgresql/*/bin (apt-get install postgresql)"
}

# The account the server runs as: PostgreSQL will not start as root.
server_account() {
    if [[ $(id -u) != 0 ]]; then id -un
    elif id postgres >/dev/null 2>&1; then echo postgres
    else echo nobody
    fi
}

as_server() { # command…: runs it as the server's account
    if [[ $(id -u) != 0 ]]; then "$@"; else runuser -u "$account" -- "$@"; fi
}

make_certificate() { # dir
    local dir=$1
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
        -addext subjectAltName=IP:127.0.0.1 \
        -keyout "$dir/server.key" -out "$dir/server.crt" 2>>"$dir/openssl.log" \
        || die "openssl could not make the server's certificate (see $dir/openssl.log)"
    chmod 600 "$dir/server.key"
}

start() {
    local dir tls
    close_inherited_descriptors
    parse_start_arguments "$@"
    local bin account
    bin=$(bindir)
    account=$(server_account)
    if [[ -z $dir ]]; then
        dir=$(mktemp -d "${TMPDIR:-/tmp}/postgres-test.XXXXXX")
    else
        mkdir -p "$dir"
        dir=$(cd "$dir" && pwd)
        if [[ -e $dir/$marker ]]; then
            if [[ -f $dir/data/postmaster.pid ]] && as_server "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
                die "a test PostgreSQL already runs in $dir; stop it first"
            fi
            find "$dir" -mindepth 1 -delete
        elif [[ -n $(ls -A "$dir") ]]; then
            die "$dir is not empty and was not made by this script; give an empty or new folder"
        fi
    fi
    touch "$dir/$marker"
    mkdir -p "$dir/socket"
    # A password of letters and digits only: it is written into files and URLs as is.
    tr -dc 'A-Za-z0-9' </dev/urandom | head -c 24 >"$dir/password" || true
    chmod 600 "$dir/password"
    [[ $tls == no ]] || make_certificate "$dir"
    # The parent folder must be reachable by the server's account (mktemp's is 0700).
    [[ $(id -u) != 0 ]] || chown -R "$account:" "$dir"
    as_server "$bin/initdb" -D "$dir/data" -U "$user" --pwfile="$dir/password" \
        --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 --no-sync \
        >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; die "initdb failed in $dir/data"; }
    local options="-c listen_addresses=127.0.0.1 -c unix_socket_directories=$dir/socket -c fsync=off"
    options+=" -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
    [[ $tls == no ]] || options+=" -c ssl=on -c ssl_cert_file=$dir/server.crt -c ssl_key_file=$dir/server.key"
    local port attempt started=no
    for attempt in 1 2 3 4 5 6 7 8 9 10; do
        port=$(free_port)
        # -w: pg_ctl returns once the server accepts connections (or failed to start).
        if as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
            -o "$options -c port=$port" start >/dev/null 2>&1; then
            started=yes
            break
        fi
        echo "postgres-test: PostgreSQL did not start on port $port (attempt $attempt), retrying" >&2
    done
    [[ $started == yes ]] || { tail -20 "$dir/server.log" >&2; die "PostgreSQL would not start (log: $dir/server.log)"; }
    as_server "$bin/createdb" -h "$dir/socket" -p "$port" -U "$user" "$database" \
        || die "createdb $database failed (log: $dir/server.log)"
    local pid
    pid=$(head -1 "$dir/data/postmaster.pid")
    echo "postgres-test: PostgreSQL pid $pid on 127.0.0.1:$port, data in $dir" >&2
    q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
    echo "export PG_TEST_URL=$(q "postgres://$user@127.0.0.1:$port/$database")"
    echo "export PG_TEST_PORT=$(q "$port")"
    echo "export PG_TEST_PID=$(q "$pid")"
    echo "export PG_TEST_DIR=$(q "$dir")"
    echo "export PG_TEST_USER=$(q "$user")"
    echo "export PG_TEST_DATABASE=$(q "$database")"
    echo "export PG_TEST_PASSWORD_FILE=$(q "$dir/password")"
}

stop() {
    [[ $# -eq 1 ]] || usage
    local dir=$1 bin account
    [[ -d $dir ]] || die "no such folder: $dir"
    [[ -e $dir/$marker ]] || die "$dir was not made by this script; not touching it"
    bin=$(bindir)
    account=$(server_account)
    if [[ -f $dir/data/postmaster.pid ]]; then
        # fast: disconnects clients and stops at once; immediate if that hangs.
        as_server "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 20 stop >/dev/null 2>&1 \
            || as_server "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 20 stop >/dev/null 2>&1 \
            || echo "postgres-test: PostgreSQL in $dir would not stop" >&2
    fi
    rm -rf "$dir"
}

case ${1:-} in
    start) shift; start "$@" ;;
    stop) shift; stop "$@" ;;
    *) usage ;;
esac
