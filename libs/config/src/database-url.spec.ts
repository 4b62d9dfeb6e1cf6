import { DatabaseTarget, loadSettings, SettingsError } from './settings';

const PASSWORD = 'hunter2';

const sut = (value: string): DatabaseTarget => loadSettings({ DATABASE_URL: value }).database;

/** The message loadSettings refuses this DATABASE_URL with (fails the test if it accepts it). */
function refusal(value: string): string {
  try {
    sut(value);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return (error as SettingsError).message;
  }
  throw new Error(`accepted ${value}`);
}

const mysql = (fields: Partial<DatabaseTarget>) => ({
  type: 'mysql',
  host: 'db',
  port: 3306,
  user: 'pwpush',
  password: 'secret',
  database: 'pwpush',
  sslMode: 'preferred',
  ...fields,
});

describe('DATABASE_URL', () => {
  it.each([
    ['sqlite:data/pwpush.sqlite3', { type: 'sqlite', path: 'data/pwpush.sqlite3' }],
    ['sqlite:/var/lib/pwpush/db.sqlite3', { type: 'sqlite', path: '/var/lib/pwpush/db.sqlite3' }],
    ['sqlite:///var/lib/pwpush/db.sqlite3', { type: 'sqlite', path: '/var/lib/pwpush/db.sqlite3' }],
    ['mysql://pwpush:secret@db/pwpush', mysql({})],
    ['mysql2://pwpush:secret@db:3307/pwpush', mysql({ port: 3307 })],
    ['mariadb://pwpush:secret@db/pwpush', mysql({})],
    ['MySQL://pwpush:secret@DB.internal/pwpush', mysql({ host: 'DB.internal' })],
    ['mysql://pwpush:secret@[::1]:3306/pwpush', mysql({ host: '::1' })],
    ['mysql://pwpush:secret@[fd00::5]/pwpush', mysql({ host: 'fd00::5' })],
    ['mysql://pwpush:secret@10.0.0.5/pwpush', mysql({ host: '10.0.0.5' })],
    ['mysql://root@db/pwpush', mysql({ user: 'root', password: '' })],
    ['mysql://pw%40push:p%40ss%3Aw%2Frd%23%3F%25@db/pwpush', mysql({ user: 'pw@push', password: 'p@ss:w/rd#?%' })],
    // Unambiguous without encoding: the password ends at the last @, the user name at the first colon.
    ['mysql://pwpush:p@ss:word@db/pwpush', mysql({ password: 'p@ss:word' })],
    ['mysql://pwpush:secret@db/pw%2Dpush', mysql({ database: 'pw-push' })],
    ['mysql://pwpush:secret@db/pwpush?ssl-mode=DISABLED', mysql({ sslMode: 'disabled' })],
    ['mysql://pwpush:secret@db/pwpush?ssl-mode=preferred', mysql({ sslMode: 'preferred' })],
    ['mysql://pwpush:secret@db/pwpush?ssl-mode=Required', mysql({ sslMode: 'required' })],
    ['mysql://pwpush:secret@db/pwpush?ssl_mode=verify_ca', mysql({ sslMode: 'verify_ca' })],
    [
      'mysql://pwpush:secret@db/pwpush?ssl-mode=VERIFY_IDENTITY&ssl-ca=/etc/ca.pem',
      mysql({ sslMode: 'verify_identity', sslCa: '/etc/ca.pem' }),
    ],
    // A CA alone means checking the server against it, as MySQL's clients do.
    ['mysql://pwpush:secret@db/pwpush?ssl-ca=/etc/ca.pem', mysql({ sslMode: 'verify_ca', sslCa: '/etc/ca.pem' })],
    [
      'mysql2://pwpush:secret@db/pwpush?sslca=%2Fetc%2Fmy%20ca.pem&ssl_mode=verify_identity',
      mysql({ sslMode: 'verify_identity', sslCa: '/etc/my ca.pem' }),
    ],
    ['postgres://pwpush:secret@db:5432/pwpush', { type: 'postgres', url: 'postgres://pwpush:secret@db:5432/pwpush' }],
    ['postgres://pwpush:secret@[::1]/pwpush', { type: 'postgres', url: 'postgres://pwpush:secret@[::1]/pwpush' }],
    ['postgresql://pwpush@db/pwpush?sslmode=require', { type: 'postgres', url: 'postgresql://pwpush@db/pwpush?sslmode=require' }],
    [
      'postgres://pwpush@db/pwpush?sslmode=verify-full&sslrootcert=/ca.pem&sslcert=/c.pem&sslkey=/k.pem&uselibpqcompat=true',
      {
        type: 'postgres',
        url: 'postgres://pwpush@db/pwpush?sslmode=verify-full&sslrootcert=/ca.pem&sslcert=/c.pem&sslkey=/k.pem&uselibpqcompat=true',
      },
    ],
  ])('reads %s', (value, expected) => {
    // A MySQL target keeps the URL as given too, for start-up messages to mask.
    expect(sut(value)).toEqual(expected.type === 'mysql' ? { url: value, ...expected } : expected);
  });

  it.each([
    'postgres://admin:hunter2@db',
    'postgresql://admin:hunter2@db/',
    'pg://admin:hunter2@db/pwpush',
    'mysql://admin:hunter2@db',
    'mysql://admin:hunter2@db/',
    'mysql://admin:hunter2@db/pwpush/more',
    'mysql://admin:hunter2@/pwpush',
    'mysql://admin:hunter2@db!x/pwpush',
    'mysql://admin:hunter2@[::g]/pwpush',
    'mysql://admin:hunter2@db:99999/pwpush',
    'mariadb:admin:hunter2@db/pwpush',
    'hunter2',
    'sqlite:',
  ])('refuses %s, naming the variable but not quoting the value', (value) => {
    const message = refusal(value);
    expect(message).toMatch(/^Invalid setting DATABASE_URL: /);
    expect(message).not.toContain('hunter2');
    expect(message).not.toContain('admin');
  });

  describe('a password that is not percent-encoded', () => {
    // Each would otherwise be cut at its @ / ? # and the rest read as the host, port, path or query.
    it.each([
      `mysql://admin:${PASSWORD}#x@db/pwpush`,
      `mysql://admin:${PASSWORD}/x@db/pwpush`,
      `mysql://admin:12/${PASSWORD}@db/pwpush`,
      `mysql://admin:1?${PASSWORD}@db/pwpush`,
      `mysql://admin:${PASSWORD}?x@db/pwpush`,
      `mysql://admin:${PASSWORD}%@db/pwpush`,
      `mysql://admin:p@${PASSWORD}/x@db:3306/pwpush`,
      `mysql://admin:p@ss:${PASSWORD}/#@db:3306/pwpush`,
      `postgres://admin:${PASSWORD}/x@db/pwpush`,
      `postgres://admin:1/${PASSWORD}@db/pwpush`,
      `postgres://admin:${PASSWORD}#@db/pwpush`,
    ])('%s: says to percent-encode it, quoting none of it', (value) => {
      const message = refusal(value);
      expect(message).toMatch(
        /^Invalid setting DATABASE_URL: .*percent-encode the user name and password \(@ as %40, : as %3A, \/ as %2F, # as %23/,
      );
      expect(message).not.toContain(PASSWORD);
      expect(message).not.toContain('admin');
    });
  });

  describe('a parameter that is not understood stops start-up, named', () => {
    it.each([
      ['mysql://pwpush@db/pwpush?ssl=true', 'unknown parameter "ssl"; MySQL/MariaDB understand ssl-mode'],
      ['mysql://pwpush@db/pwpush?sslmode=require', 'unknown parameter "sslmode"; MySQL/MariaDB understand ssl-mode'],
      ['mysql://pwpush@db/pwpush?bogus=1', 'unknown parameter "bogus"'],
      ['mysql://pwpush@db/pwpush?ssl-mode=REQUIRED&charset=latin1', 'unknown parameter "charset"'],
      ['mysql://pwpush@db/pwpush?SSL-MODE=REQUIRED', 'unknown parameter "SSL-MODE"'],
      ['mysql://pwpush@db/pwpush?ssl-mode=REQUIRE', 'ssl-mode must be one of DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY'],
      ['mysql://pwpush@db/pwpush?ssl-mode=', 'ssl-mode must be one of'],
      ['mysql://pwpush@db/pwpush?ssl-mode=REQUIRED&ssl_mode=DISABLED', 'parameter ssl-mode is given twice'],
      ['mysql://pwpush@db/pwpush?ssl-ca=', 'ssl-ca needs a file path'],
      ['mysql://pwpush@db/pwpush?ssl-mode=REQUIRED&ssl-ca=/ca.pem', 'ssl-ca is used only with ssl-mode=VERIFY_CA or VERIFY_IDENTITY'],
      ['mysql://pwpush@db/pwpush?ssl-mode=PREFERRED&ssl-ca=/ca.pem', 'ssl-ca is used only with ssl-mode=VERIFY_CA or VERIFY_IDENTITY'],
      ['mysql://pwpush@10.0.0.5/pwpush?ssl-mode=VERIFY_IDENTITY', 'ssl-mode=VERIFY_IDENTITY needs the host name'],
      ['mysql://pwpush@[::1]/pwpush?ssl-mode=VERIFY_IDENTITY', 'ssl-mode=VERIFY_IDENTITY needs the host name'],
      [
        'postgres://pwpush@db/pwpush?bogus=1',
        'unknown parameter "bogus"; PostgreSQL understands sslmode, sslrootcert, sslcert, sslkey and uselibpqcompat',
      ],
      ['postgres://pwpush@db/pwpush?ssl-mode=REQUIRED', 'unknown parameter "ssl-mode"; PostgreSQL understands sslmode'],
      ['postgres://pwpush@db/pwpush?ssl=true', 'unknown parameter "ssl"'],
      ['postgres://pwpush@db/pwpush?statement_timeout=0', 'unknown parameter "statement_timeout"'],
      ['postgres://pwpush@db/pwpush?sslmode=REQUIRE', 'sslmode must be one of disable, prefer, require, verify-ca, verify-full, no-verify'],
      ['postgres://pwpush@db/pwpush?sslmode=require&sslmode=disable', 'parameter sslmode is given twice'],
      ['postgres://pwpush@db/pwpush?sslrootcert=', 'sslrootcert needs a file path'],
    ])('%s', (value, expected) => {
      expect(refusal(value)).toContain(`Invalid setting DATABASE_URL: ${expected}`);
    });

    it('names no parameter that could be a piece of a password', () => {
      expect(refusal('mysql://pwpush@db/pwpush?hunter2%2F%3D=1')).toBe(
        'Invalid setting DATABASE_URL: a parameter that is not understood; MySQL/MariaDB understand ssl-mode (DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY) and ssl-ca.',
      );
    });
  });
});
