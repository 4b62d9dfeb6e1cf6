/**
 * A jest configuration that runs the given suites once on each engine of the run, in one jest and
 * one pool of workers, each taking the next file of any engine: SQLite (unless `servers` only),
 * and the MySQL/MariaDB (E2E_MYSQL_URL) and PostgreSQL (E2E_PG_URL) servers that are set. A project
 * per suite and engine, whose setup file (engine-of-project.js) points the test file at its
 * engine; each test file still gets a database of its own. On a server, the specs that are the
 * same on every engine (`@one-engine`, test/support/one-engine.js) stay out, and so do the suites
 * marked `once` (they run on SQLite only). The suites' own settings stay theirs, but for the ones
 * jest takes for the whole run only (the global setup, the test timeout: they must agree on it).
 */
const { join } = require('node:path');
const { oneEngineSpecs } = require('./one-engine.js');

const ROOT = join(__dirname, '..', '..');

/** @param suites {Record<string, object>} @param options {{ servers?: 'only' | 'required', once?: string[] }} */
function onEngines(suites, options = {}) {
  const servers = [
    ['mysql', process.env.E2E_MYSQL_URL, { E2E_MYSQL_URL: process.env.E2E_MYSQL_URL, E2E_PG_URL: '' }],
    ['postgres', process.env.E2E_PG_URL, { E2E_MYSQL_URL: '', E2E_PG_URL: process.env.E2E_PG_URL }],
  ];
  if (options.servers && !servers.every(([, url]) => url)) throw new Error('Set both E2E_MYSQL_URL and E2E_PG_URL: this configuration runs on both servers.');
  const engines = [
    ...(options.servers === 'only' ? [] : [['sqlite', 'set', { E2E_MYSQL_URL: '', E2E_PG_URL: '' }]]),
    ...servers.filter(([, url]) => url),
  ];
  const configs = Object.values(suites);
  const timeouts = new Set(configs.map((config) => config.testTimeout));
  if (timeouts.size !== 1) throw new Error(`These suites have different test timeouts (${[...timeouts].join(', ')}): run them apart.`);
  const sameEverywhere = oneEngineSpecs(ROOT);
  const projects = [];
  for (const [engine, , env] of engines) {
    for (const [suite, config] of Object.entries(suites)) {
      if (engine !== 'sqlite' && options.once?.includes(suite)) continue;
      const { globalSetup: _globalSetup, testTimeout: _testTimeout, ...project } = config;
      projects.push({
        ...project,
        rootDir: ROOT,
        displayName: `${suite} ${engine}`,
        testPathIgnorePatterns: ['/node_modules/', ...(engine === 'sqlite' ? [] : sameEverywhere)],
        setupFiles: ['<rootDir>/test/support/engine-of-project.js'],
        globals: { E2E_SERVERS: env },
      });
    }
  }
  return { rootDir: ROOT, testTimeout: configs[0].testTimeout, globalSetup: configs.find((config) => config.globalSetup)?.globalSetup, projects };
}

module.exports = { onEngines };
