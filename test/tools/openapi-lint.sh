#!/usr/bin/env bash
# Usage: npm run test:openapi-lint
# Lints the OpenAPI document as the deployed function serves it (test/tools/openapi-document.ts
# runs the GetOpenApi handler on events/get-openapi.json), once with PUBLIC_READS off and once on,
# with Redocly CLI (recommended rules, every warning an error: redocly.yaml) and Spectral
# (spectral:oas: .spectral.yaml, --fail-severity=warn). Both are pinned devDependencies. Any
# warning or error fails; rules switched off are in those two files, each with its reason.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
  sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
for public_reads in false true; do
  document="$out/openapi-public-reads-$public_reads.json"
  PUBLIC_READS=$public_reads POWERTOOLS_LOG_LEVEL=WARN npx tsx test/tools/openapi-document.ts "$document"
  echo "== Redocly CLI, PUBLIC_READS=$public_reads"
  npx redocly lint --config redocly.yaml --format stylish "$document" || status=1
  echo "== Spectral, PUBLIC_READS=$public_reads"
  npx spectral lint --ruleset .spectral.yaml --fail-severity=warn "$document" || status=1
done
exit $status
