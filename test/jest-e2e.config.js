/** e2e tests: the real HTTP app against a real database (SQLite, or MySQL / PostgreSQL when E2E_MYSQL_URL / E2E_PG_URL is set). */
const unit = require('../jest.config.js');
const { oneEngineSpecs } = require('./support/one-engine.js');

const onServerEngine = Boolean(process.env.E2E_MYSQL_URL || process.env.E2E_PG_URL);

module.exports = {
  ...unit,
  rootDir: '..',
  roots: ['<rootDir>/test'],
  testRegex: '\\.e2e-spec\\.ts$',
  // On MySQL or PostgreSQL, the specs that are the same on every engine stay out (test/support/one-engine.js).
  testPathIgnorePatterns: ['/node_modules/', ...(onServerEngine ? oneEngineSpecs(`${__dirname}/..`) : [])],
  testTimeout: 120_000,
  // Client types from the current openapi.json, for the generated-client test.
  globalSetup: '<rootDir>/test/support/generate-client-types.ts',
};
