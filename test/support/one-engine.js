const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

/**
 * Specs that reach no SQL that differs between engines (a command line's parsing, settings refused
 * before any connection), and browser specs whose every read and write an e2e spec makes on each
 * engine (what they add, a browser's scripts, looks and axe, is the same on every engine), say so
 * with a `@one-engine` line in their opening comment, and why. npm
 * test runs them, on SQLite; the runs on MySQL and PostgreSQL leave them out (these patterns, for
 * testPathIgnorePatterns), so that what is the same on every engine is not paid for three times.
 */
function oneEngineSpecs(rootDir) {
  return readdirSync(join(rootDir, 'test'), { recursive: true })
    .filter((file) => file.endsWith('-spec.ts') && /^\s*\*\s*@one-engine\b/m.test(readFileSync(join(rootDir, 'test', file), 'utf8')))
    .map((file) => `<rootDir>/test/${file.replace(/\./g, '\\.')}$`);
}

module.exports = { oneEngineSpecs };
