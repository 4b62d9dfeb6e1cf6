/**
 * TLS to MySQL/MariaDB: these tests start MariaDB servers of their own (mariadbd, certificates from
 * openssl), so they run once, in `npm test`, rather than once per engine like the e2e suite.
 */
const e2e = require('./jest-e2e.config.js');

module.exports = { ...e2e, testRegex: '\\.tls-spec\\.ts$', globalSetup: undefined };
