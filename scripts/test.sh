#!/usr/bin/env bash
# npm test: installs what is missing (dependencies from the lockfile, the Go-built S3 and SMTP
# servers, Debian's chromium), builds unless dist/ is current, and runs every test on SQLite:
# unit, e2e, TLS to MySQL (on MariaDB servers of its own, once) and browser. Each step prints its
# duration; run alone, a table of them closes the run (inside .ci/run, .ci/run's table has them).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/steps.sh

step "dependencies (npm ci when node_modules is older than the lockfile)" sh scripts/install-if-needed.sh
step "tools: versitygw, mailpit (built once into .cache/bin), chromium" \
  bash -c 'bash scripts/install-versitygw.sh && bash scripts/install-mailpit.sh && bash scripts/install-chromium.sh'
step "build (unless dist/ is newer than its sources)" bash scripts/build-if-stale.sh
step "unit tests" npm run --silent test:unit
step "e2e on SQLite" npm run --silent test:e2e
step "TLS to MySQL (its own MariaDB servers)" npm run --silent test:tls
step "browser tests on SQLite (Debian's chromium)" npm run --silent test:browser
