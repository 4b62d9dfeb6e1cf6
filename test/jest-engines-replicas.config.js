/** The multi-replica suite on MySQL/MariaDB (E2E_MYSQL_URL) and on PostgreSQL (E2E_PG_URL), in one run (see jest-engines.config.js). */
const { onBothServers } = require('./support/both-servers.js');

module.exports = onBothServers({ replicas: require('./jest-replicas.config.js') });
