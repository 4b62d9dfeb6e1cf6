/**
 * The e2e and browser suites on MySQL/MariaDB (E2E_MYSQL_URL) and on PostgreSQL (E2E_PG_URL), in one
 * run: .ci/run gives it two workers, and each takes the next file of either engine, so the two
 * engines share one jest, one transform cache and one generation of the client types. Each test
 * file still gets a database of its own.
 */
const { onBothServers } = require('./support/both-servers.js');

module.exports = onBothServers({ e2e: require('./jest-e2e.config.js'), browser: require('./jest-browser.config.js') });
