/** The multi-replica suite: several real server processes on one MySQL/MariaDB database (E2E_MYSQL_URL). */
const e2e = require('./jest-e2e.config.js');

module.exports = { ...e2e, testRegex: '\\.replicas-spec\\.ts$', testTimeout: 180_000 };
