/** Browser tests: the pages in Debian's chromium, driven by playwright-core, against the real app and database. */
const e2e = require('./jest-e2e.config.js');

module.exports = { ...e2e, testRegex: '\\.browser-spec\\.ts$', globalSetup: undefined };
