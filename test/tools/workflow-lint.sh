#!/usr/bin/env bash
# Usage: npm run test:workflow-lint
# Lints the GitHub Actions workflows in .github/workflows with actionlint (built once with Go into
# .tools/) and zizmor (a Python virtual environment under .tools/), at pinned versions. zizmor runs
# offline: its checks of the workflow text, not of what the pinned actions' repositories say now.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
  sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
actionlint_version=v1.7.12
actionlint="$root/.tools/actionlint-$actionlint_version/actionlint"
if [[ ! -x "$actionlint" ]]; then
  echo "Building actionlint $actionlint_version into .tools/ ..." >&2
  GOBIN="$(dirname "$actionlint")" go install "github.com/rhysd/actionlint/cmd/actionlint@$actionlint_version"
fi
zizmor_bin=$(bash test/tools/python-tool.sh zizmor 'zizmor==1.32.0')
"$actionlint" -no-color
"$zizmor_bin/zizmor" --offline --no-progress --min-severity low .github/workflows
echo "workflow lint: actionlint and zizmor found nothing"
