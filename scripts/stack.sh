# Sourced by the demo and the benchmarks (needs `here`, `bin` and `work` set): a throwaway slapd
# with the sample users, a Config.plist pointing at it and at a mi-server on a random loopback
# port (MI_CONFIG), and functions to start and stop that mi-server (its pid in `server_pid`, its
# log in $work/server.log) and to run a command as a user (`as ana mi …`). Everything is removed
# on exit, unless KEEP is set.
. "$here/scripts/server-process.sh"
stack_cleanup() {
  stop_server
  bash "$here/scripts/slapd-test.sh" stop "$work/slapd" >/dev/null 2>&1 || true
  [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap stack_cleanup EXIT
as() { XDG_STATE_HOME="$work/state/$1" "${@:2}"; }
eval "$(bash "$here/scripts/slapd-test.sh" start "$work/slapd" 2>/dev/null)"
export MI_DEMO_PORT=$((20000 + RANDOM % 40000)) MI_DEMO_TEMPLATES="$here/Samples/templates" MI_DEMO_DATA="$work/server-data"
bash "$here/scripts/demo-config.sh" "$work/Config.plist" "$work/Documents"
export MI_CONFIG="$work/Config.plist"
