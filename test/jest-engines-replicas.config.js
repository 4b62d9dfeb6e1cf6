/** The multi-replica suite on MySQL/MariaDB (E2E_MYSQL_URL) and on PostgreSQL (E2E_PG_URL), in one run (see test/support/engines.js). */
const { onEngines } = require('./support/engines.js');

module.exports = onEngines({ replicas: require('./jest-replicas.config.js') }, { servers: 'only' });
