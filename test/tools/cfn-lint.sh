#!/usr/bin/env bash
# Usage: npm run test:cfn-lint
# Synthesizes every stack variant the infra tests cover (test/tools/synth-variants.ts) into a
# temporary folder and runs cfn-lint on each template. Any finding fails the run, except W3005,
# triaged in docs/verification.md (CDK states a function's dependency on its role twice).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
  sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
bin=$(bash test/tools/python-tool.sh cfn-lint 'cfn-lint==1.58.0')
source test/tools/synth-templates.sh
status=0
for template in "${templates[@]}"; do
  echo "cfn-lint ${template#"$synth_out"/}"
  "$bin/cfn-lint" --format parseable --ignore-checks W3005 -- "$template" || status=1
done
[[ $status -eq 0 ]] && echo "cfn-lint: ${#templates[@]} templates, no findings"
exit $status
