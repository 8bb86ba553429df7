#!/usr/bin/env bash
# Throwaway OpenLDAP server for MIDirectory's tests.
#
#   scripts/slapd-test.sh start [DIR] [--tls]   start slapd on 127.0.0.1 (free port), data in DIR
#   scripts/slapd-test.sh stop DIR              stop it and delete DIR
#
# start prints shell `export` lines on stdout (eval them); everything else goes to stderr:
#   LDAP_TEST_URL, LDAP_TEST_PID, LDAP_TEST_DIR, LDAP_TEST_BASE, LDAP_TEST_BIND_DN,
#   LDAP_TEST_BIND_PASSWORD_FILE, LDAP_TEST_FOREMAN_GROUP, LDAP_TEST_POSIX_FOREMAN_GROUP,
#   LDAP_TEST_REFERRAL_PORT (a free port the fixtures' referral points at: nothing listens).
# The server uses its own slapd.conf, mdb database and pid file under DIR: never the system
# database or /etc/ldap/slapd.d. It works as root and as any other user.
# --tls gives it a certificate for IP 127.0.0.1 signed by a throwaway CA (LDAP_TEST_CA_FILE),
# so StartTLS works, and an ldaps:// listener too (LDAP_TEST_LDAPS_URL); without --tls (the
# default) the server offers no TLS at all.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test-service-lib.sh
source "$here/test-service-lib.sh"
fixtures=$here/fixtures/directory.ldif
marker=.slapd-test
base_dn='dc=example,dc=test'
bind_dn='cn=mi-service,dc=example,dc=test'
foreman_group='cn=foremen,ou=groups,dc=corp,dc=test'
posix_foreman_group='cn=foremen-posix,ou=groups,dc=corp,dc=test'
schema=/etc/ldap/schema
modules=/usr/lib/ldap
PATH=$PATH:/usr/sbin:/sbin
# ldap-utils must not read ~/.ldaprc, /etc/ldap/ldap.conf or LDAPTLS_* from the caller.
export LDAPNOINIT=1

die() { echo "slapd-test: $*" >&2; exit 1; }
usage() { die "usage: $0 start [DIR] [--tls] | stop DIR"; }

write_config() { # dir port tls
    local dir=$1 tls=$2
    {
        for s in core cosine inetorgperson nis; do echo "include $schema/$s.schema"; done
        cat <<EOF
pidfile $dir/slapd.pid
argsfile $dir/slapd.args
modulepath $modules
moduleload back_mdb
disallow bind_anon
sizelimit 500
EOF
        if [[ $tls == yes ]]; then
            cat <<EOF
TLSCACertificateFile $dir/tls/ca.pem
TLSCertificateFile $dir/tls/server.pem
TLSCertificateKeyFile $dir/tls/server.key
EOF
        fi
        cat <<EOF

database mdb
suffix "dc=test"
directory $dir/db
maxsize 16777216
index objectClass eq
index uid eq

# Anonymous may only authenticate; the service account reads everything but passwords;
# users read their own entry; groups are for the service account alone.
access to attrs=userPassword
    by anonymous auth
    by * none
access to dn.subtree="ou=groups,dc=corp,dc=test"
    by dn.exact="$bind_dn" read
    by * none
access to *
    by dn.exact="$bind_dn" read
    by self read
    by * none
EOF
    } >"$dir/slapd.conf"
}

make_certificates() { # dir
    local tls=$1/tls
    mkdir -p "$tls"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=MI test CA" \
        -keyout "$tls/ca.key" -out "$tls/ca.pem" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
        -keyout "$tls/server.key" -out "$tls/server.csr" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >"$tls/ext.cnf"
    openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" \
        -CAcreateserial -days 2 -extfile "$tls/ext.cnf" -out "$tls/server.pem" 2>/dev/null
    chmod 600 "$tls/server.key" "$tls/ca.key"
}

load_fixtures() { # dir
    local dir=$1 password
    password=$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')
    (umask 077 && printf '%s' "$password" >"$dir/service-password")
    sed -e "s|@SERVICE_PASSWORD@|$password|" -e "s|@REFERRAL_PORT@|$referral_port|" \
        "$fixtures" >"$dir/directory.ldif"
    slapadd -q -f "$dir/slapd.conf" -b dc=test -l "$dir/directory.ldif" >"$dir/slapadd.log" 2>&1 ||
        { cat "$dir/slapadd.log" >&2; die "slapadd failed"; }
}

# The pid file outlives a killed slapd: only signal a process that runs our config.
is_our_slapd() { # pid dir
    [[ -r /proc/$1/cmdline ]] && tr '\0' ' ' <"/proc/$1/cmdline" | grep -qF -- "$2/slapd.conf"
}

launch() { # dir tls -> sets url (and ldaps_url with TLS); retries when a port got taken
    local dir=$1 tls=$2 attempt listeners
    for attempt in 1 2 3 4 5 6 7 8 9 10; do
        url="ldap://127.0.0.1:$(free_port)"
        listeners="$url/"
        if [[ $tls == yes ]]; then
            ldaps_url="ldaps://127.0.0.1:$(free_port)"
            listeners="$listeners $ldaps_url/"
        fi
        # Without -d slapd forks; the parent exits only once the child listens (or failed).
        if slapd -f "$dir/slapd.conf" -h "$listeners" -s 0 </dev/null >>"$dir/slapd.log" 2>&1; then
            return 0
        fi
        echo "slapd-test: slapd did not start on $listeners (attempt $attempt), retrying" >&2
    done
    cat "$dir/slapd.log" >&2
    die "slapd would not start; run: slapd -d 1 -f $dir/slapd.conf -h '$listeners'"
}

wait_until_answering() { # dir url
    local dir=$1 url=$2 i
    for i in $(seq 1 50); do
        if ldapwhoami -x -H "$url" -D "$bind_dn" -y "$dir/service-password" >/dev/null 2>&1; then
            return 0
        fi
        sleep 0.2
    done
    die "slapd at $url does not answer the service account's bind"
}

start() {
    local dir tls
    close_inherited_descriptors
    parse_start_arguments "$@"
    command -v slapd >/dev/null || die "slapd not found (apt-get install slapd ldap-utils)"
    [[ -f $modules/back_mdb.so || -f $modules/back_mdb.la ]] || die "no back_mdb in $modules"
    if [[ -z $dir ]]; then
        dir=$(mktemp -d "${TMPDIR:-/tmp}/slapd-test.XXXXXX")
    else
        mkdir -p "$dir"
        dir=$(cd "$dir" && pwd)
        if [[ -e $dir/$marker ]]; then
            if [[ -f $dir/slapd.pid ]] && is_our_slapd "$(cat "$dir/slapd.pid")" "$dir"; then
                die "a test slapd already runs in $dir (pid $(cat "$dir/slapd.pid")); stop it first"
            fi
            find "$dir" -mindepth 1 -delete
        elif [[ -n $(ls -A "$dir") ]]; then
            die "$dir is not empty and was not made by this script; give an empty or new folder"
        fi
    fi
    touch "$dir/$marker"
    mkdir -p "$dir/db"
    [[ $tls == no ]] || make_certificates "$dir"
    write_config "$dir" "$tls"
    local referral_port
    referral_port=$(free_port)
    local reserved_port=$referral_port  # free_port never hands it out again
    load_fixtures "$dir"
    local url ldaps_url
    launch "$dir" "$tls"
    wait_until_answering "$dir" "$url"
    local pid
    pid=$(cat "$dir/slapd.pid")
    echo "slapd-test: slapd pid $pid at $url, data in $dir" >&2
    q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
    echo "export LDAP_TEST_URL=$(q "$url")"
    echo "export LDAP_TEST_PID=$(q "$pid")"
    echo "export LDAP_TEST_DIR=$(q "$dir")"
    echo "export LDAP_TEST_BASE=$(q "$base_dn")"
    echo "export LDAP_TEST_BIND_DN=$(q "$bind_dn")"
    echo "export LDAP_TEST_BIND_PASSWORD_FILE=$(q "$dir/service-password")"
    echo "export LDAP_TEST_FOREMAN_GROUP=$(q "$foreman_group")"
    echo "export LDAP_TEST_POSIX_FOREMAN_GROUP=$(q "$posix_foreman_group")"
    echo "export LDAP_TEST_REFERRAL_PORT=$(q "$referral_port")"
    if [[ $tls == yes ]]; then
        echo "export LDAP_TEST_CA_FILE=$(q "$dir/tls/ca.pem")"
        echo "export LDAP_TEST_LDAPS_URL=$(q "$ldaps_url")"
    fi
}

stop() {
    [[ $# -eq 1 ]] || usage
    local dir=$1 pid i
    [[ -d $dir ]] || die "no such folder: $dir"
    [[ -e $dir/$marker ]] || die "$dir was not made by this script; not touching it"
    if [[ -f $dir/slapd.pid ]]; then
        pid=$(cat "$dir/slapd.pid")
        if is_our_slapd "$pid" "$dir" && kill "$pid" 2>/dev/null; then
            for i in $(seq 1 50); do
                is_our_slapd "$pid" "$dir" || break
                sleep 0.1
            done
            if is_our_slapd "$pid" "$dir"; then
                kill -KILL "$pid" 2>/dev/null || true
                echo "slapd-test: slapd $pid ignored SIGTERM; killed" >&2
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
