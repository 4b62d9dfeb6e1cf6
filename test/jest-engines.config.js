/**
 * The e2e, browser and TLS suites in one jest, on SQLite and on each database server that is set
 * (E2E_MYSQL_URL, E2E_PG_URL; test/support/engines.js): npm test runs it, with workers that take
 * the next file of any engine, so that no engine's suite waits behind another's. TLS starts
 * MariaDB servers of its own, so it runs once, in the SQLite project.
 */
const { onEngines } = require('./support/engines.js');

module.exports = onEngines(
  { e2e: require('./jest-e2e.config.js'), browser: require('./jest-browser.config.js'), tls: require('./jest-tls.config.js') },
  { once: ['tls'] },
);
