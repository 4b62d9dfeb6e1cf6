/** The multi-replica suite: several real server processes on one MySQL/MariaDB (E2E_MYSQL_URL) or PostgreSQL (E2E_PG_URL) database. */
const e2e = require('./jest-e2e.config.js');

module.exports = { ...e2e, testRegex: '\\.replicas-spec\\.ts$', testTimeout: 180_000 };
