/**
 * A jest configuration that runs the given suites once on each database server: a project per
 * suite and engine, whose setup file (engine-of-project.js) points the test file at its server.
 * The suites' own settings stay theirs, but for the ones jest takes for the whole run only (the
 * global setup, the test timeout: the suites given together must agree on it).
 */
const { join } = require('node:path');

const ROOT = join(__dirname, '..', '..');

function onBothServers(suites) {
  const servers = { mysql: process.env.E2E_MYSQL_URL, postgres: process.env.E2E_PG_URL };
  if (!servers.mysql || !servers.postgres) throw new Error('Set both E2E_MYSQL_URL and E2E_PG_URL: this configuration runs on both servers.');
  const configs = Object.values(suites);
  const timeouts = new Set(configs.map((config) => config.testTimeout));
  if (timeouts.size !== 1) throw new Error(`These suites have different test timeouts (${[...timeouts].join(', ')}): run them apart.`);
  const projects = [];
  for (const [engine, env] of [
    ['mysql', { E2E_MYSQL_URL: servers.mysql, E2E_PG_URL: '' }],
    ['postgres', { E2E_MYSQL_URL: '', E2E_PG_URL: servers.postgres }],
  ]) {
    for (const [suite, config] of Object.entries(suites)) {
      const { globalSetup: _globalSetup, testTimeout: _testTimeout, ...project } = config;
      projects.push({ ...project, rootDir: ROOT, displayName: `${suite} ${engine}`, setupFiles: ['<rootDir>/test/support/engine-of-project.js'], globals: { E2E_SERVERS: env } });
    }
  }
  return { rootDir: ROOT, testTimeout: configs[0].testTimeout, globalSetup: configs.find((config) => config.globalSetup)?.globalSetup, projects };
}

module.exports = { onBothServers };
