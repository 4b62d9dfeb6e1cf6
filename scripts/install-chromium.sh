#!/usr/bin/env bash
# The browser tests drive Debian's chromium (never a downloaded browser): installs it when missing.
set -euo pipefail
[ -x /usr/bin/chromium ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's chromium for the browser tests (first run only)..."
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq chromium >/dev/null
else
  echo "The browser tests need /usr/bin/chromium: apt-get install -y chromium (as root)." >&2
  exit 1
fi
