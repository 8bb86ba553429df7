# Sourced (needs `bin`, `work` and MI_CONFIG set when the functions run): start_server runs
# "$bin/mi-server" with MI_CONFIG in the background (its pid in `server_pid`, its log in
# $work/server.log) and returns once it listens; stop_server stops it. When the array
# `server_configs` lists several Config.plists (stack.sh's cluster), start_server starts one
# mi-server per file, in turn, logging to $work/server-1.log, …; `server_pids` and
# `server_logs` list them all and `server_pid` is the first.
server_pid= server_pids=() server_logs=() server_configs=()
start_server() {
  local configs=("${server_configs[@]}") config log n=0
  [ ${#configs[@]} -gt 0 ] || configs=("$MI_CONFIG")
  for config in "${configs[@]}"; do
    n=$((n + 1))
    log="$work/server.log"
    [ ${#configs[@]} -eq 1 ] || log="$work/server-$n.log"
    "$bin/mi-server" --config "$config" 2> "$log" &
    server_pids+=("$!") server_logs+=("$log")
    local started=
    for _ in $(seq 200); do grep -q "listening on" "$log" 2>/dev/null && { started=1; break; }; sleep 0.05; done
    [ -n "$started" ] || { echo "mi-server did not start:" >&2; cat "$log" >&2; exit 1; }
  done
  server_pid=${server_pids[0]}
}
stop_server() {
  local pid
  for pid in "${server_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${server_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  server_pid= server_pids=() server_logs=()
}
