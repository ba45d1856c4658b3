#!/usr/bin/env bash
# Installs Debian's chromium for the browser test (test/browser/api-reference.test.ts) when it is
# missing. Needs root (CI containers run as root) and the Debian package mirror; does nothing when
# /usr/bin/chromium is already there.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  echo "chromium is already installed: $(/usr/bin/chromium --version)"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "chromium is missing; as root: apt-get update && apt-get install -y --no-install-recommends chromium" >&2
  exit 1
fi
echo "Installing chromium from the Debian packages (about 100 MB) ..."
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium
/usr/bin/chromium --version
