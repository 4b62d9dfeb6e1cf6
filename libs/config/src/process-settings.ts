import { choice, group, integer, text } from './setting';

/** Anything else (`prod`, `staging`) would quietly run as development: a generated key per replica. */
const NODE_ENVS = new Set(['production', 'development', 'test']);

export const PROCESS = group({
  title: 'Process',
  settings: {
    nodeEnv: text({
      name: 'NODE_ENV',
      default: 'development',
      check: { valid: (v) => NODE_ENVS.has(v), expectation: 'must be production, development or test (unset: development)' },
      type: 'production, development or test',
      meaning:
        'production, development or test; anything else (prod, staging) stops the start rather than run as development. Production refuses to start without PWPUSH_MASTER_KEY.',
    }),
    port: integer({ name: 'PORT', default: 5100, min: 0, max: 65535, meaning: 'The HTTP port.' }),
    shutdownTimeoutMs: integer({
      name: 'SHUTDOWN_TIMEOUT_MS',
      default: 10_000,
      min: 0,
      max: 600_000,
      unit: 'ms',
      meaning: 'On SIGTERM/SIGINT: how long in-flight requests may take before the process exits anyway.',
    }),
    logLevel: choice({
      name: 'LOG_LEVEL',
      values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      default: 'info',
      meaning: 'The least severe level logged (pino); logs are JSON lines on stdout.',
    }),
    dataDir: text({
      name: 'DATA_DIR',
      default: 'data',
      type: 'directory',
      meaning: 'Where the embedded SQLite database, the development key file and locally stored files live by default.',
    }),
  },
});
