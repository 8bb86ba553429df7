#!/usr/bin/env bash
# Throwaway nginx (Debian's `nginx-light`) in front of several mi-servers, for tests and demos.
#
#   scripts/nginx-test.sh start DIR UPSTREAM_PORT [UPSTREAM_PORT…]   proxy 127.0.0.1:<free port>
#                                                                    to 127.0.0.1:UPSTREAM_PORT…
#   scripts/nginx-test.sh stop DIR                                   stop it and delete DIR
#
# start prints shell `export` lines on stdout (eval them); everything else goes to stderr:
#   NGINX_TEST_PORT (where nginx listens), NGINX_TEST_PID, NGINX_TEST_DIR.
# DIR/nginx.conf is the configuration we recommend to administrators (see docs/server.md, "Several
# servers"), with only the paths and ports made up here. nginx writes nothing outside DIR: its
# pid, logs (DIR/access.log names the upstream of every request) and temporary files are in DIR.
# As root (CI) the workers run as `nobody`; as anyone else nginx runs as them.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test-service-lib.sh
source "$here/test-service-lib.sh"
marker=.nginx-test
nginx=${NGINX:-/usr/sbin/nginx}

die() { echo "nginx-test: $*" >&2; exit 1; }
usage() { die "usage: $0 start DIR UPSTREAM_PORT [UPSTREAM_PORT…] | stop DIR"; }

is_port() { [[ $1 =~ ^[0-9]+$ ]] && (($1 >= 1 && $1 <= 65535)); }

# The configuration: one upstream of every mi-server, tried in turn.
write_config() { # dir port upstream…
    local dir=$1 port=$2 upstream
    shift 2
    {
        echo "# Written by scripts/nginx-test.sh: nginx in front of several mi-servers."
        [[ $(id -u) != 0 ]] || echo "user nobody $(id -gn nobody);"
        cat <<EOF
worker_processes 2;
pid $dir/nginx.pid;
error_log $dir/error.log warn;

events {
    worker_connections 1024;
}

http {
    log_format upstreams '\$remote_addr [\$time_local] "\$request" \$status \$body_bytes_sent '
                         'upstream=\$upstream_addr upstream_status=\$upstream_status time=\$request_time';
    access_log $dir/access.log upstreams;
    client_body_temp_path $dir/temp/client-body;
    proxy_temp_path $dir/temp/proxy;
    fastcgi_temp_path $dir/temp/fastcgi;
    uwsgi_temp_path $dir/temp/uwsgi;
    scgi_temp_path $dir/temp/scgi;

    # Round robin over the mi-servers. One failure takes a server out for 2 s; keepalive
    # reuses connections to them (mi-server then sees a few long connections, all from here).
    # The zone shares the turn and the failures between nginx's workers.
    upstream mi_servers {
        zone mi_servers 64k;
EOF
        for upstream in "$@"; do
            echo "        server 127.0.0.1:$upstream max_fails=1 fail_timeout=2s;"
        done
        cat <<EOF
        keepalive 32;
    }

    server {
        listen 127.0.0.1:$port;
        # mi-server enforces Server.MaxUploadBytes itself (and says so with a 413 naming it).
        client_max_body_size 0;

        location / {
            proxy_pass http://mi_servers;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$http_host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto \$scheme;
            # Uploads and exports stream through: nothing is held on nginx's disk.
            proxy_request_buffering off;
            proxy_buffering off;
            # Large uploads over slow links; the exports of big templates.
            proxy_connect_timeout 5s;
            proxy_send_timeout 600s;
            proxy_read_timeout 600s;
            # nginx's default, said aloud: a request whose body was sent is not sent to another
            # server (mi sends it again itself, with the same form id).
            proxy_next_upstream error timeout;
        }
    }
}
EOF
    } >"$dir/nginx.conf"
}

start() {
    [[ $# -ge 2 ]] || usage
    local dir=$1 upstream
    shift
    for upstream in "$@"; do is_port "$upstream" || die "not a port: $upstream"; done
    [[ -x $nginx ]] || die "nginx not found at $nginx (apt-get install nginx-light)"
    close_inherited_descriptors
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [[ -e $dir/$marker ]]; then
        if [[ -f $dir/nginx.pid ]] && kill -0 "$(cat "$dir/nginx.pid")" 2>/dev/null; then
            die "a test nginx already runs in $dir; stop it first"
        fi
        find "$dir" -mindepth 1 -delete
    elif [[ -n $(ls -A "$dir") ]]; then
        die "$dir is not empty and was not made by this script; give an empty or new folder"
    fi
    touch "$dir/$marker"
    mkdir -p "$dir/temp"
    # The workers (nobody, as root) reach their temporary folders through DIR.
    [[ $(id -u) != 0 ]] || chmod 755 "$dir"
    local port attempt started=no
    for attempt in 1 2 3 4 5 6 7 8 9 10; do
        port=$(free_port)
        write_config "$dir" "$port" "$@"
        # -e: the error log before the configuration is read, which is /var/log/nginx otherwise.
        # nginx returns once it listens (it daemonizes after binding), or fails to bind.
        if "$nginx" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" >>"$dir/start.log" 2>&1; then
            started=yes
            break
        fi
        echo "nginx-test: nginx did not start on port $port (attempt $attempt), retrying" >&2
    done
    [[ $started == yes ]] || { tail -20 "$dir/start.log" "$dir/error.log" >&2 || true; die "nginx would not start (logs in $dir)"; }
    local pid="" wait
    for wait in $(seq 50); do
        [[ -s $dir/nginx.pid ]] && { pid=$(cat "$dir/nginx.pid"); break; }
        sleep 0.1
    done
    [[ -n $pid ]] || die "nginx wrote no pid file in $dir"
    echo "nginx-test: nginx pid $pid on 127.0.0.1:$port in front of 127.0.0.1:{$(IFS=,; echo "$*")}, files in $dir" >&2
    q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
    echo "export NGINX_TEST_PORT=$(q "$port")"
    echo "export NGINX_TEST_PID=$(q "$pid")"
    echo "export NGINX_TEST_DIR=$(q "$dir")"
}

stop() {
    [[ $# -eq 1 ]] || usage
    local dir=$1 pid wait
    [[ -d $dir ]] || die "no such folder: $dir"
    [[ -e $dir/$marker ]] || die "$dir was not made by this script; not touching it"
    if [[ -s $dir/nginx.pid ]]; then
        pid=$(cat "$dir/nginx.pid")
        # TERM: a fast shutdown (QUIT would wait for the keepalive connections of clients).
        if kill -TERM "$pid" 2>/dev/null; then
            for wait in $(seq 100); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
            done
            if kill -0 "$pid" 2>/dev/null; then
                echo "nginx-test: nginx $pid would not stop; killing it" >&2
                # The master leads its own process group (nginx calls setsid): the workers too.
                kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
            fi
        fi
    fi
    rm -rf "$dir"
}

case ${1:-} in
    start) shift; start "$@" ;;
    stop) shift; stop "$@" ;;
    *) usage ;;
esac
