# Sourced by the demo and the benchmarks (needs `here`, `bin` and `work` set): a throwaway slapd
# with the sample users, a Config.plist pointing at it and at a mi-server on a random loopback
# port (MI_CONFIG), and functions to start and stop that mi-server (its pid in `server_pid`, its
# log in $work/server.log) and to run a command as a user (`as ana mi …`). Everything is removed
# on exit, unless KEEP is set.
#
# MI_STACK_DB picks the server side:
#   sqlite   (default) one mi-server on SQLite;
#   postgres one mi-server on a throwaway PostgreSQL (scripts/postgres-test.sh);
#   cluster  PostgreSQL, two mi-servers sharing the data directory and one Server.SigningKeyFile,
#            and nginx in front (scripts/nginx-test.sh): MI_DEMO_PORT is nginx's, so `mi` and
#            every client go through it; start_server starts both (server_pids, server_logs).
. "$here/scripts/server-process.sh"
. "$here/scripts/test-service-lib.sh"
stack_postgres=
stack_gps_pid=
stack_cleanup() {
  stop_server
  [ -z "$stack_gps_pid" ] || kill -TERM -- "-$stack_gps_pid" 2>/dev/null || true
  [ ! -d "$work/nginx" ] || bash "$here/scripts/nginx-test.sh" stop "$work/nginx" >/dev/null 2>&1 || true
  [ -z "$stack_postgres" ] || bash "$here/scripts/postgres-test.sh" stop "$stack_postgres" >/dev/null 2>&1 || true
  bash "$here/scripts/slapd-test.sh" stop "$work/slapd" >/dev/null 2>&1 || true
  [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap stack_cleanup EXIT
stack_db=${MI_STACK_DB:-sqlite}
case $stack_db in
  sqlite|postgres|cluster) ;;
  *) echo "MI_STACK_DB must be sqlite, postgres or cluster, not \"$stack_db\"" >&2; exit 64 ;;
esac
as() { XDG_STATE_HOME="$work/state/$1" "${@:2}"; }
# MI_STACK_GPS_LOG: an NMEA log that Debian's gpsfake (gpsd-clients) replays through a real gpsd
# on a free loopback port, which the Config.plist names as Location.GPSD.
if [ -n "${MI_STACK_GPS_LOG:-}" ]; then
  [ -x /usr/bin/gpsfake ] || { echo "gpsfake is missing: run scripts/setup.sh (Debian's gpsd and gpsd-clients)" >&2; exit 69; }
  gps_port=$(free_port)
  mkdir -p "$work/gpsd"
  TMPDIR="$work/gpsd" setsid timeout --kill-after=5 3600 /usr/bin/gpsfake -q -c 0.05 -P "$gps_port" "$MI_STACK_GPS_LOG" \
    >"$work/gpsd/gpsfake.log" 2>&1 &
  stack_gps_pid=$!
  for _ in $(seq 1 150); do (exec 3<>"/dev/tcp/127.0.0.1/$gps_port") 2>/dev/null && break; sleep 0.1; done
  export MI_DEMO_GPSD="127.0.0.1:$gps_port"
fi
eval "$(bash "$here/scripts/slapd-test.sh" start "$work/slapd" 2>/dev/null)"
export MI_DEMO_PORT=$((20000 + RANDOM % 40000)) MI_DEMO_TEMPLATES="$here/Samples/templates" MI_DEMO_DATA="$work/server-data"
if [ "$stack_db" != sqlite ]; then
  # In a folder of its own: as root the server runs as `postgres`, which cannot enter $work.
  eval "$(bash "$here/scripts/postgres-test.sh" start 2>"$work/postgres-start.log")" \
    || { cat "$work/postgres-start.log" >&2; exit 1; }
  stack_postgres=$PG_TEST_DIR
  export MI_DEMO_DATABASE="$PG_TEST_URL" MI_DEMO_DATABASE_PASSWORD_FILE="$PG_TEST_PASSWORD_FILE"
fi
if [ "$stack_db" = cluster ]; then
  # Every connection comes from nginx: the per-address limit must allow all of them, and the
  # sign-in limits count the client address nginx forwards (Server.TrustedProxies).
  export MI_DEMO_SIGNING_KEY_FILE="$work/signing.key" MI_DEMO_MAX_CONNECTIONS=1000 MI_DEMO_TRUSTED_PROXY=127.0.0.1
  stack_ports=("$(free_port)")
  reserved_port=${stack_ports[0]} stack_ports+=("$(free_port)")
  eval "$(bash "$here/scripts/nginx-test.sh" start "$work/nginx" "${stack_ports[@]}" 2>/dev/null)"
  MI_DEMO_PORT=$NGINX_TEST_PORT
  for stack_port in "${stack_ports[@]}"; do
    MI_DEMO_LISTEN_PORT=$stack_port bash "$here/scripts/demo-config.sh" "$work/server-$stack_port.plist" "$work/Documents"
    server_configs+=("$work/server-$stack_port.plist")
  done
fi
stack_description="mi-server on port $MI_DEMO_PORT"
[ "$stack_db" != postgres ] || stack_description+=" on PostgreSQL"
[ "$stack_db" != cluster ] || stack_description="nginx on port $MI_DEMO_PORT in front of two mi-servers (ports ${stack_ports[*]}) on PostgreSQL"
bash "$here/scripts/demo-config.sh" "$work/Config.plist" "$work/Documents"
export MI_CONFIG="$work/Config.plist"
