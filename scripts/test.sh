#!/usr/bin/env bash
# npm test: installs what is missing (dependencies from the lockfile, the Go-built S3 and SMTP
# servers, Debian's chromium), builds unless dist/ is current, and runs every test: unit, then
# e2e, browser and TLS to MySQL (on MariaDB servers of its own, once) in one jest on SQLite, and
# also on the MySQL/MariaDB and PostgreSQL servers named by E2E_MYSQL_URL and E2E_PG_URL when they
# are set (.ci/run sets both). Each step prints its duration; run alone, a table of them closes the
# run (inside .ci/run, .ci/run's table has them).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/steps.sh

step "dependencies (npm ci when node_modules is older than the lockfile)" sh scripts/install-if-needed.sh
step "tools: versitygw, mailpit (built once into .cache/bin), chromium" \
  bash -c 'bash scripts/install-versitygw.sh && bash scripts/install-mailpit.sh && bash scripts/install-chromium.sh'
step "build (unless dist/ is newer than its sources)" bash scripts/build-if-stale.sh
step "unit tests" npm run --silent test:unit
engines=SQLite
[[ -n ${E2E_MYSQL_URL:-} ]] && engines+=", MySQL/MariaDB"
[[ -n ${E2E_PG_URL:-} ]] && engines+=", PostgreSQL"
step "e2e, browser (Debian's chromium) and TLS tests on $engines, one pool of three workers" npm run --silent test:engines
