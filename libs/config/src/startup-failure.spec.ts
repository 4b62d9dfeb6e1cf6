import { resolve } from 'node:path';
import { loadSettings, SettingsError } from './settings';
import { describeStartupFailure } from './startup-failure';

const KEY = 'ab'.repeat(32);
const uid = process.getuid ? ` (uid ${process.getuid()})` : '';

/** An error shaped as Node's system errors and the drivers' are: a message and the fields that say what failed. */
const failure = (message: string, fields: Record<string, unknown>) => Object.assign(new Error(message), fields);

describe('describeStartupFailure', () => {
  const sqlite = loadSettings({});
  const mysql = loadSettings({ DATABASE_URL: 'mysql://pwpush:Hunter2-Secret@db.internal:3306/pwpush', PWPUSH_MASTER_KEY: KEY });
  const postgres = loadSettings({ DATABASE_URL: 'postgres://pwpush:Hunter2-Secret@db.internal:5432/pwpush', DB_CONNECT_TIMEOUT_MS: '2000' });

  it('gives a settings error as it is (it names the variable)', () => {
    expect(describeStartupFailure(new SettingsError('Invalid setting PORT: must be an integer from 0 to 65535.'))).toBe(
      'Invalid setting PORT: must be an integer from 0 to 65535.',
    );
  });

  it('names DATA_DIR and DATABASE_URL when the default data directory cannot be created (both live there)', () => {
    const error = failure("EACCES: permission denied, mkdir 'data'", { code: 'EACCES', syscall: 'mkdir', path: 'data' });
    expect(describeStartupFailure(error, sqlite)).toBe(
      `Cannot create directory ${resolve('data')} (permission denied): set DATA_DIR (now data) to a directory this process${uid} can write; ` +
        `set DATABASE_URL (now sqlite:data/pwpush.sqlite3) to a MySQL or PostgreSQL URL, or to sqlite:<a file in a directory this process${uid} can write>.`,
    );
  });

  it('names only DATA_DIR when the database is elsewhere', () => {
    const error = failure('EROFS: read-only file system', { code: 'EROFS', syscall: 'open', path: '/srv/pwpush/master.key' });
    expect(describeStartupFailure(error, { ...mysql, dataDir: '/srv/pwpush' })).toBe(
      `Cannot open /srv/pwpush/master.key (read-only file system): set DATA_DIR (now /srv/pwpush) to a directory this process${uid} can write.`,
    );
  });

  it('names only DATABASE_URL for a SQLite file outside DATA_DIR, also when a parent directory fails', () => {
    const settings = loadSettings({ DATABASE_URL: 'sqlite:/var/lib/db/pwpush.sqlite3', DATA_DIR: '/tmp/pwpush' });
    const error = failure('ENOTDIR', { code: 'ENOTDIR', syscall: 'mkdir', path: '/var/lib' });
    expect(describeStartupFailure(error, settings)).toMatch(/^Cannot create directory \/var\/lib \(a part of the path is not a directory\): set DATABASE_URL \(now sqlite:\/var\/lib\/db\/pwpush\.sqlite3\)/);
    expect(describeStartupFailure(failure('unable to open database file', { code: 'SQLITE_CANTOPEN' }), settings)).toMatch(
      /^Cannot use the SQLite database \/var\/lib\/db\/pwpush\.sqlite3 \(SQLITE_CANTOPEN\): set DATABASE_URL/,
    );
  });

  it('names PORT when the port is taken', () => {
    const error = failure('listen EADDRINUSE: address already in use :::5100', { code: 'EADDRINUSE', syscall: 'listen', port: 5100 });
    expect(describeStartupFailure(error, sqlite)).toBe('Cannot listen on port 5100 (it is in use): set PORT to a free port.');
    const metrics = failure('listen EADDRINUSE: address already in use :::9464', { code: 'EADDRINUSE', syscall: 'listen', port: 9464 });
    expect(describeStartupFailure(metrics, { ...sqlite, metricsPort: 9464 })).toBe('Cannot listen on port 9464 (it is in use): set METRICS_PORT to a free port.');
  });

  it.each([
    [mysql, failure('connect ECONNREFUSED 10.1.2.3:3306', { code: 'ECONNREFUSED', address: '10.1.2.3', port: 3306 }), 'Cannot connect to the MySQL database at 10.1.2.3:3306 (ECONNREFUSED): nothing accepts connections on that host and port. Check DATABASE_URL.'],
    [
      mysql,
      failure("Access denied for user 'pwpush'@'10.0.0.9' (using password: YES)", { code: 'ER_ACCESS_DENIED_ERROR' }),
      'Cannot connect to the MySQL database (ER_ACCESS_DENIED_ERROR): the server refused the user name or password. Check DATABASE_URL: in a user name or password, @ : / # ? % must be percent-encoded (p@ss:w/rd%1 as p%40ss%3Aw%2Frd%251; encodeURIComponent does it).',
    ],
    [mysql, failure('connect ETIMEDOUT', { code: 'ETIMEDOUT' }), 'Cannot connect to the MySQL database (ETIMEDOUT): no answer within DB_CONNECT_TIMEOUT_MS. Check DATABASE_URL and DB_CONNECT_TIMEOUT_MS (now 5000).'],
    [postgres, failure('database "pwpush" does not exist', { code: '3D000' }), 'Cannot connect to the PostgreSQL database (3D000): the database does not exist. Check DATABASE_URL.'],
    [postgres, failure('timeout expired', {}), 'Cannot connect to the PostgreSQL database (timeout): no answer within DB_CONNECT_TIMEOUT_MS. Check DATABASE_URL and DB_CONNECT_TIMEOUT_MS (now 2000).'],
  ])('says why the database would not connect, and to check DATABASE_URL: %#', (settings, error, expected) => {
    expect(describeStartupFailure(error, settings)).toBe(expected);
  });

  it.each([
    ['mysql://pwpush:Hunter2@Secret@db.internal:3306/pwpush', 'ER_ACCESS_DENIED_ERROR', 'an @ left as it is'],
    ['postgres://pwpush:Hunter2:Secret@db.internal/pwpush', '28P01', 'a : left as it is'],
    ['postgres://pwpush:Hunter2:Sec@ret@db.internal/pwpush', '28P01', 'an @ and a : left as they are'],
    ['mysql://pwpush:Hunter2%40Secret@db.internal/pwpush', 'ER_ACCESS_DENIED_ERROR', undefined],
  ])('when %s is refused, says which special characters its password holds unencoded, never the password', (url, code, unencoded) => {
    const described = describeStartupFailure(failure('password authentication failed for user "pwpush"', { code }), loadSettings({ DATABASE_URL: url }));
    expect(described).toContain('the server refused the user name or password. Check DATABASE_URL: in a user name or password, @ : / # ? % must be percent-encoded');
    expect(described.endsWith(unencoded === undefined ? 'encodeURIComponent does it).' : `encodeURIComponent does it); this one has ${unencoded}.`)).toBe(true);
    expect(described).not.toMatch(/Hunter2|Secret|Sec|ret@/);
  });

  it('leaves out a host name that does not resolve: a badly escaped URL puts part of its password there', () => {
    const error = failure('getaddrinfo ENOTFOUND Secret@db.internal', { code: 'ENOTFOUND', hostname: 'Secret@db.internal' });
    expect(describeStartupFailure(error, mysql)).toBe('Cannot connect to the MySQL database (ENOTFOUND): the host name does not resolve. Check DATABASE_URL.');
  });

  it('gives anything else by type, code and first line, with the settings secrets masked', () => {
    const error = failure(`QueryFailedError: near mysql://pwpush:Hunter2-Secret@db.internal:3306/pwpush and ${KEY}\n    at Query.run`, { name: 'QueryFailedError', code: 'ER_PARSE_ERROR' });
    const sut = describeStartupFailure(error, mysql);
    expect(sut).toBe('QueryFailedError (ER_PARSE_ERROR): QueryFailedError: near [redacted] and [redacted]');
    expect(describeStartupFailure(failure('Hunter2-Secret was wrong', {}), mysql)).toBe('Error: [redacted] was wrong');
    expect(describeStartupFailure('a thrown string')).toBe('Error: a thrown string');
  });

  it('masks the SMTP password too', () => {
    const settings = loadSettings({
      PWP__MAIL__SMTP_ADDRESS: 'smtp.example.com',
      PWP__MAIL__MAILER_SENDER: 'pwpush@example.com',
      PWP__MAIL__SMTP_USER_NAME: 'apikey',
      PWP__MAIL__SMTP_PASSWORD: 'Smtp-Secret',
    });
    expect(describeStartupFailure(failure('AUTH apikey Smtp-Secret refused', {}), settings)).toBe('Error: AUTH apikey [redacted] refused');
  });
});
