#!/usr/bin/env bash
# Usage: python-tool.sh NAME REQUIREMENT...
# Makes (once) a Python virtual environment .tools/NAME with the pinned REQUIREMENTs and prints its
# bin folder. Nothing is installed globally, so CI and a laptop run the same versions.
set -euo pipefail
name=$1
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
venv="$root/.tools/$name"
stamp="$venv/.requirements"
if [[ ! -x "$venv/bin/python" || "$(cat "$stamp" 2>/dev/null)" != "$*" ]]; then
  echo "Installing $* into .tools/$name ..." >&2
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "$@" >&2
  echo "$*" >"$stamp"
fi
echo "$venv/bin"
