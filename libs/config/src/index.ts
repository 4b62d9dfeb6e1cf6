/**
 * Configuration: every setting the service reads, typed and validated once at start-up, and what
 * to tell the operator when the process cannot start. Nothing outside this library reads process.env.
 *
 * Each group of settings is one table, `<group>-settings.ts`: one entry per environment variable,
 * with its full name, type and limits, default, secret flag and one line of meaning (setting.ts has
 * the entry kinds: flag, integer, size, duration, choice, text, list, custom). The typed value, the
 * start-up message, the `_FILE` handling of secrets (secret-files.ts), `.env.example` and
 * docs/configuration.md all come from the tables.
 *
 * To add a setting: add its entry to its group's table, read it where the group's settings are
 * built (its `read…` function, or loadSettings in settings.ts) into a field of `Settings`, then run
 * `npm run config:docs` and commit the two files it writes (config-reference.spec.ts fails until
 * they match). A rule between settings (one needs another) is a small named check beside its group,
 * called at the end of loadSettings.
 *
 * To add a group: a new `<group>-settings.ts` exporting `group({ title, intro, settings: { … } })`,
 * its place in SETTING_GROUPS (groups.ts: the order of the generated files), its field in `Settings`
 * with the function that reads it (`read.all(GROUP)` when the table's keys are the fields), then
 * `npm run config:docs`.
 */
export * from './settings';
export * from './config.module';
export { readProcessEnv } from './process-env';
export { proxyTrust } from './trusted-proxies';
export { describeStartupFailure } from './startup-failure';
