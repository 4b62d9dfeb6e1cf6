#!/bin/sh
# Installs dependencies from the lockfile when node_modules is missing or older than the lockfile.
set -e
cd "$(dirname "$0")/.."
if [ -f node_modules/.package-lock.json ] && [ ! package-lock.json -nt node_modules/.package-lock.json ]; then
  exit 0
fi
# Native modules (better-sqlite3, argon2) build from source when no prebuilt binary can be
# fetched; point node-gyp at the local Node headers instead of downloading them.
if [ -z "${npm_config_nodedir:-}" ] && [ -d /usr/include/node ]; then
  npm_config_nodedir=/usr
  export npm_config_nodedir
fi
npm ci --no-audit --no-fund --loglevel=error
