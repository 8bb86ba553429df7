# Shared by the throwaway test servers (slapd-test.sh, postgres-test.sh, nginx-test.sh): sourced, not run.

# A daemon keeps every descriptor it inherits: one left open to the caller (Foundation's
# Process watches a socket until its child and all grandchildren close it) would make the
# caller wait for the server to exit. Keep only stdin, stdout and stderr.
close_inherited_descriptors() {
    local fd
    for fd in /dev/fd/*; do
        fd=${fd##*/}
        if ((fd > 2)); then eval "exec $fd>&-" 2>/dev/null || true; fi
    done
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

free_port() { # a free loopback port, never $reserved_port (one that must stay free)
    local port
    while :; do
        port=$((20000 + RANDOM % 40000))
        [[ $port == "${reserved_port:-}" ]] || port_in_use "$port" || break
    done
    echo "$port"
}

# `start [DIR] [--tls]`'s arguments: sets dir (may stay empty) and tls (yes or no).
parse_start_arguments() {
    dir="" tls=no
    local arg
    for arg in "$@"; do
        case $arg in
            --tls) tls=yes ;;
            -*) usage ;;
            *) [[ -z $dir ]] || usage; dir=$arg ;;
        esac
    done
}
