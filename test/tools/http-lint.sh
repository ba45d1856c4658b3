#!/usr/bin/env bash
# Usage: npm run test:http-lint
# Starts the local server (npm start's code, a fresh Dynoxide in a temporary folder, one user
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
# shellcheck source=test/tools/local-api.sh
source test/tools/local-api.sh
start_local_api linter PUBLIC_READS=true
npx tsx test/tools/http-lint.ts "http://127.0.0.1:$port" "$httplint/httplint" "linter:$password" "$redbot/redbot"
