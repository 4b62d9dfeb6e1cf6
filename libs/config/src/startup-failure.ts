import { dirname, resolve, sep } from 'node:path';
import { credentialsAdvice } from './database-url';
import { METRICS } from './metrics-settings';
import { PROCESS } from './process-settings';
import { Settings, SettingsError } from './settings';

/** The fields of Node's system errors and of the database drivers' errors that say what failed. */
interface FailureFields {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  syscall?: unknown;
  path?: unknown;
  address?: unknown;
  port?: unknown;
}

const FILE_REASONS = new Map(
  Object.entries({
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'read-only file system',
    ENOTDIR: 'a part of the path is not a directory',
    ENOENT: 'no such file or directory',
    EEXIST: 'a file is in the way',
    EISDIR: 'it is a directory',
    ENOSPC: 'no space left on the device',
  }),
);
const FILE_VERBS = new Map(
  Object.entries({ mkdir: 'create directory', open: 'open', write: 'write to', rename: 'rename', unlink: 'remove' }),
);

const LISTEN_REASONS = new Map(
  Object.entries({ EADDRINUSE: 'it is in use', EACCES: 'permission denied: ports below 1024 need privileges' }),
);

const TIMED_OUT = 'no answer within DB_CONNECT_TIMEOUT_MS';
/** The drivers' codes for a refused user name or password: often a password whose special characters are not percent-encoded. */
const CREDENTIALS_REFUSED = new Set(['ER_ACCESS_DENIED_ERROR', '28P01']);
/** mysql2's and node-postgres's codes (and the network's) for a connection the server would not give. */
const CONNECTION_FAILURES = new Map(
  Object.entries({
    ECONNREFUSED: 'nothing accepts connections on that host and port',
    ENOTFOUND: 'the host name does not resolve',
    EAI_AGAIN: 'the host name could not be resolved (no answer from DNS)',
    EHOSTUNREACH: 'the host is unreachable',
    ENETUNREACH: 'the host is unreachable',
    ECONNRESET: 'the server closed the connection',
    ETIMEDOUT: TIMED_OUT,
    ER_ACCESS_DENIED_ERROR: 'the server refused the user name or password',
    '28P01': 'the server refused the user name or password',
    '28000': 'the server refused this user from this host',
    ER_HOST_NOT_PRIVILEGED: 'the server refused this host',
    ER_BAD_DB_ERROR: 'the database does not exist',
    '3D000': 'the database does not exist',
    ER_DBACCESS_DENIED_ERROR: 'the user may not use this database',
  }),
);
/** node-postgres says these by message only. */
const PG_FAILURES = new Map<string, [code: string, reason: string]>(
  Object.entries({
    'timeout expired': ['timeout', TIMED_OUT],
    'timeout exceeded when trying to connect': ['timeout', TIMED_OUT],
    'Connection terminated due to connection timeout': ['timeout', TIMED_OUT],
    'Connection terminated unexpectedly': [
      'closed',
      'the connection closed before the server answered (unreachable, or slower than DB_CONNECT_TIMEOUT_MS)',
    ],
  }),
);

/**
 * Why the process could not start, in one line and in words, naming the setting to change: what
 * the server and the CLI print before exiting with an error. No stack trace, and nothing that can
 * hold a secret: host names are left out (a badly escaped DATABASE_URL puts part of its password
 * there) and any other message has the settings' secret values masked.
 */
export function describeStartupFailure(error: unknown, settings?: Settings): string {
  if (error instanceof SettingsError) return error.message;
  const failure = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as FailureFields;
  const code = typeof failure.code === 'string' ? failure.code : undefined;
  const message = typeof failure.message === 'string' ? failure.message : '';
  if (failure.syscall === 'listen' && code !== undefined) {
    const port = typeof failure.port === 'number' ? failure.port : settings?.port;
    const setting = (port !== undefined && port === settings?.metricsPort ? METRICS : PROCESS).settings.port.name;
    return `Cannot listen on port ${port} (${LISTEN_REASONS.get(code) ?? code}): set ${setting} to a free port.`;
  }
  if (typeof failure.path === 'string' && code !== undefined && FILE_REASONS.has(code)) {
    return describeFileFailure(failure.path, code, failure.syscall, settings);
  }
  if (settings?.database.type === 'sqlite' && code?.startsWith('SQLITE_')) {
    return `Cannot use the SQLite database ${resolve(settings.database.path)} (${code}): ${sqliteAdvice(settings.database.path)}.`;
  }
  if (settings !== undefined && settings.database.type !== 'sqlite') {
    const reason = code === undefined ? undefined : CONNECTION_FAILURES.get(code);
    const known = reason === undefined ? PG_FAILURES.get(message) : [code!, reason];
    if (known !== undefined) return describeConnectionFailure(known[1], known[0], failure, settings);
  }
  const name = typeof failure.name === 'string' ? failure.name : 'Error';
  const firstLine = message.split('\n', 1)[0].slice(0, 500);
  return mask(`${name}${code ? ` (${code})` : ''}: ${firstLine}`, settings);
}

const sqliteAdvice = (path: string): string =>
  `set DATABASE_URL (now sqlite:${path}) to a MySQL or PostgreSQL URL, or to sqlite:<a file in a directory this process${uid()} can write>`;

function describeFileFailure(path: string, code: string, syscall: unknown, settings?: Settings): string {
  const absolute = resolve(path);
  const verb = (typeof syscall === 'string' && FILE_VERBS.get(syscall)) || 'use';
  const fixes: string[] = [];
  if (settings && related(absolute, resolve(settings.dataDir))) {
    fixes.push(`set DATA_DIR (now ${settings.dataDir}) to a directory this process${uid()} can write`);
  }
  if (settings?.database.type === 'sqlite' && related(absolute, dirname(resolve(settings.database.path)))) {
    fixes.push(sqliteAdvice(settings.database.path));
  }
  return `Cannot ${verb} ${absolute} (${FILE_REASONS.get(code)})${fixes.length > 0 ? `: ${fixes.join('; ')}` : ''}.`;
}

/** Whether a failing path concerns a directory: the directory, one of its parents (which a recursive mkdir creates first), or inside it. */
const related = (path: string, directory: string): boolean =>
  path === directory || directory.startsWith(path + sep) || path.startsWith(directory + sep);

function describeConnectionFailure(reason: string, code: string, failure: FailureFields, settings: Settings): string {
  // The address of a refused connection is the resolved IP, never part of the URL's text.
  const at = code === 'ECONNREFUSED' && typeof failure.address === 'string' ? ` at ${failure.address}:${String(failure.port)}` : '';
  const engine = settings.database.type === 'mysql' ? 'MySQL' : 'PostgreSQL';
  const timeout =
    code === 'ETIMEDOUT' || code === 'timeout' || code === 'closed'
      ? ` and DB_CONNECT_TIMEOUT_MS (now ${settings.databaseTimeouts.connectMs})`
      : '';
  const check = CREDENTIALS_REFUSED.has(code) && settings.database.type !== 'sqlite' ? `DATABASE_URL: ${credentialsAdvice(settings.database.url)}` : `DATABASE_URL${timeout}`;
  return `Cannot connect to the ${engine} database${at} (${code}): ${reason}. Check ${check}.`;
}

const uid = (): string => (process.getuid ? ` (uid ${process.getuid()})` : '');

/** Replaces every secret the settings hold (and the password inside a URL) where a message quotes it. */
function mask(text: string, settings?: Settings): string {
  if (settings === undefined) return text;
  const urls = [settings.database.type === 'sqlite' ? undefined : settings.database.url, settings.redis?.url];
  const passwords = urls.flatMap((url) => (url && URL.canParse(url) ? [new URL(url).password, safeDecode(new URL(url).password)] : []));
  const secrets = [...urls, ...passwords, settings.masterKey, ...settings.previousMasterKeys, settings.metricsToken, settings.mail.smtp?.auth?.password];
  if (settings.files.storage.type === 's3') secrets.push(settings.files.storage.credentials?.secretAccessKey);
  return secrets
    .filter((secret): secret is string => secret !== undefined && secret.length >= 4)
    .reduce((masked, secret) => masked.split(secret).join('[redacted]'), text);
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
