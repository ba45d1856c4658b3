#!/usr/bin/env bash
# Usage: source test/tools/synth-templates.sh
# Synthesizes every stack variant (test/tools/synth-variants.ts) into a temporary folder, removed
# when the sourcing script exits, and leaves the templates' paths in the array `templates`: the
# template scanners (cfn-lint.sh, policy-scan.sh) share this step.
synth_out=$(mktemp -d)
trap 'rm -rf "$synth_out"' EXIT
echo "Synthesizing the stack variants ..."
npx tsx test/tools/synth-variants.ts "$synth_out" >"$synth_out/templates.txt"
mapfile -t templates <"$synth_out/templates.txt"
if [[ ${#templates[@]} -eq 0 ]]; then
  echo "error: no template was synthesized" >&2
  exit 1
fi
