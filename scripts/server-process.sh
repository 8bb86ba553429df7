# Sourced (needs `bin`, `work` and MI_CONFIG set when the functions run): start_server runs
# "$bin/mi-server" with MI_CONFIG in the background (its pid in `server_pid`, its log in
# $work/server.log) and returns once it listens; stop_server stops it.
server_pid=
start_server() {
  "$bin/mi-server" --config "$MI_CONFIG" 2> "$work/server.log" &
  server_pid=$!
  for _ in $(seq 200); do grep -q "listening on" "$work/server.log" 2>/dev/null && return; sleep 0.05; done
  echo "mi-server did not start:" >&2; cat "$work/server.log" >&2; exit 1
}
stop_server() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=; fi
}
