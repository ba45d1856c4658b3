#!/usr/bin/env bash
# Usage: npm run test:policy-scan
# Synthesizes every stack variant (test/tools/synth-variants.ts: dev with defaults, prod with every
# option, a retained dev, samLocal) and runs two policy scanners nobody here wrote on each template:
# Checkov (its CloudFormation checks) and cfn-lint with AWS's serverless rules (cfn-lint-serverless).
# Any finding fails the run. Accepted findings carry their reason in the resource's Metadata
# (infra/constructs/scanner-skips.ts); docs/verification.md lists them.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
  sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
checkov=$(bash test/tools/python-tool.sh checkov 'checkov==3.3.30')
serverless=$(bash test/tools/python-tool.sh cfn-lint-serverless 'cfn-lint==1.58.0' 'cfn-lint-serverless==0.3.6')
source test/tools/synth-templates.sh
status=0
for template in "${templates[@]}"; do
  name=${template#"$synth_out"/}
  echo "cfn-lint with the serverless rules: $name"
  # W3005 as in test:cfn-lint (docs/verification.md); the serverless rules are added to cfn-lint's own.
  "$serverless/cfn-lint" --format parseable --ignore-checks W3005 --append-rules cfn_lint_serverless.rules \
    -- "$template" || status=1
  echo "checkov: $name"
  "$checkov/checkov" --file "$template" --framework cloudformation --compact --quiet \
    --skip-download || status=1
done
[[ $status -eq 0 ]] && echo "policy scan: ${#templates[@]} templates, Checkov and cfn-lint (serverless rules) without findings"
exit $status
