#!/usr/bin/env bash
# Usage: npm run test:schemathesis [-- extra schemathesis options]
# Starts the local server (npm start's code, a fresh DynamoDB Local in a temporary folder, one user
# with a random password) on a free port, then runs schemathesis against the OpenAPI document it
# serves, with Basic credentials, every check (`unsupported_method` included: a known path's other
# methods get 405 with Allow), a fixed seed and a bounded number of examples. Any failure fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
  sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
bin=$(bash test/tools/python-tool.sh schemathesis 'schemathesis==4.32.5')
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
data=$(mktemp -d)
password=$(python3 -c 'import secrets; print(secrets.token_urlsafe(18))')
log="$data/server.log"
PORT=$port DATA_DIR="$data" LOCAL_USERS="checker:$password" setsid npx tsx local/main.ts >"$log" 2>&1 &
server=$!
stop() {
  kill -TERM -- "-$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  rm -rf "$data"
}
trap stop EXIT
echo "Local server on port $port (log: $log), waiting until it is ready ..."
for _ in $(seq 1 120); do
  grep -qs 'listening on' "$log" && break
  kill -0 "$server" 2>/dev/null || { cat "$log"; echo "error: the local server stopped" >&2; exit 1; }
  sleep 0.5
done
grep -q 'listening on' "$log" || { cat "$log"; echo "error: the local server did not start in 60 s" >&2; exit 1; }
"$bin/st" run "http://127.0.0.1:$port/api/openapi.json" \
  --url "http://127.0.0.1:$port" \
  --auth "checker:$password" \
  --checks all \
  --seed 20261123 --max-examples "${SCHEMATHESIS_MAX_EXAMPLES:-40}" \
  --workers 1 \
  --warnings off \
  "$@"
