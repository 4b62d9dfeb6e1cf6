/** Browser tests: the pages in Debian's chromium, driven by playwright-core, against the real app and database. */
const unit = require('../jest.config.js');

module.exports = {
  ...unit,
  rootDir: '..',
  roots: ['<rootDir>/test'],
  testRegex: '\\.browser-spec\\.ts$',
  testTimeout: 60_000,
};
