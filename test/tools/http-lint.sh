#!/usr/bin/env bash
# Usage: npm run test:http-lint
# Starts the local server (npm start's code, a fresh DynamoDB Local in a temporary folder, one user
# with a random password, PUBLIC_READS=true) on a free port, runs httplint on the raw response of
# every status the API answers and REDbot on the public reads (both pinned, from PyPI, in .tools/;
# test/tools/http-lint.ts). Any warning but the Keep-Alive field Node adds fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
  sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
httplint=$(bash test/tools/python-tool.sh httplint 'httplint==2026.10.4')
redbot=$(bash test/tools/python-tool.sh redbot 'redbot==2.7.1')
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
data=$(mktemp -d)
password=$(python3 -c 'import secrets; print(secrets.token_urlsafe(18))')
log="$data/server.log"
PUBLIC_READS=true PORT=$port DATA_DIR="$data" LOCAL_USERS="linter:$password" setsid npx tsx local/main.ts >"$log" 2>&1 &
server=$!
stop() {
  kill -TERM -- "-$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  rm -rf "$data"
}
trap stop EXIT
for _ in $(seq 1 120); do
  grep -qs 'listening on' "$log" && break
  kill -0 "$server" 2>/dev/null || { cat "$log"; echo "error: the local server stopped" >&2; exit 1; }
  sleep 0.5
done
grep -q 'listening on' "$log" || { cat "$log"; echo "error: the local server did not start in 60 s" >&2; exit 1; }
npx tsx test/tools/http-lint.ts "http://127.0.0.1:$port" "$httplint/httplint" "linter:$password" "$redbot/redbot"
