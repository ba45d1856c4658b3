# Sourced by the outside tools' scripts (schemathesis.sh, http-lint.sh): `start_local_api USER [VAR=value ...]`
# starts npm start's server (local/main.ts) on a free port with a fresh Dynoxide in a temporary
# folder and USER with a random password, waits until it listens, and stops it on exit. It sets
# `port`, `password` and `log`; extra VAR=value pairs go to the server's environment.
start_local_api() {
  local user=$1
  shift
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  local_api_data=$(mktemp -d)
  password=$(python3 -c 'import secrets; print(secrets.token_urlsafe(18))')
  log="$local_api_data/server.log"
  env "$@" PORT="$port" DATA_DIR="$local_api_data" LOCAL_USERS="$user:$password" setsid npx tsx local/main.ts >"$log" 2>&1 &
  local_api_pid=$!
  trap stop_local_api EXIT
  echo "Local server on port $port (log: $log), waiting until it is ready ..."
  for _ in $(seq 1 120); do
    grep -qs 'listening on' "$log" && return 0
    kill -0 "$local_api_pid" 2>/dev/null || { cat "$log"; echo "error: the local server stopped" >&2; exit 1; }
    sleep 0.5
  done
  cat "$log"
  echo "error: the local server did not start in 60 s" >&2
  exit 1
}

stop_local_api() {
  kill -TERM -- "-$local_api_pid" 2>/dev/null || true
  wait "$local_api_pid" 2>/dev/null || true
  rm -rf "$local_api_data"
}
