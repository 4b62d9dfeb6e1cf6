// The engine this test file runs on, from its project in test/support/engines.js:
// test-database.ts reads it from process.env, which is this test file's own copy.
Object.assign(process.env, globalThis.E2E_SERVERS);
