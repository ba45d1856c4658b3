#!/usr/bin/env bash
# Usage: npm run test:schemathesis [-- extra schemathesis options]
# Starts the local server (npm start's code, a fresh Dynoxide in a temporary folder, one user
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
# shellcheck source=test/tools/local-api.sh
source test/tools/local-api.sh
start_local_api checker
"$bin/st" run "http://127.0.0.1:$port/api/openapi.json" \
  --url "http://127.0.0.1:$port" \
  --auth "checker:$password" \
  --checks all \
  --seed 20261123 --max-examples "${SCHEMATHESIS_MAX_EXAMPLES:-40}" \
  --workers 1 \
  --warnings off \
  "$@"
