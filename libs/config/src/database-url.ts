import { isIP } from 'node:net';

/** MySQL's `ssl-mode`, as its own clients spell it (here in lower case). */
export const MYSQL_SSL_MODES = ['disabled', 'preferred', 'required', 'verify_ca', 'verify_identity'] as const;
export type MysqlSslMode = (typeof MYSQL_SSL_MODES)[number];

/** A MySQL/MariaDB server, taken apart here so the driver never parses the URL (TypeORM's parser splits `[::1]` at its colons). */
export interface MysqlTarget {
  type: 'mysql';
  /** As given: what start-up messages mask. */
  url: string;
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  sslMode: MysqlSslMode;
  /** A PEM file of the CA certificates to trust (verify_ca, verify_identity); Node's built-in list without it. */
  sslCa?: string;
}

/** What DATABASE_URL names. PostgreSQL keeps its URL: node-postgres reads sslmode and the certificate files from it. */
export type DatabaseTarget = { type: 'sqlite'; path: string } | MysqlTarget | { type: 'postgres'; url: string };

const USAGE =
  'must be mysql://user:password@host:port/database (or mysql2://, mariadb://), postgres://user:password@host:port/database (or postgresql://) or sqlite:<path>';
const PERCENT_ENCODE =
  'cannot tell the password from the host: percent-encode the user name and password (@ as %40, : as %3A, / as %2F, # as %23, ? as %3F, % as %25; encodeURIComponent does it)';
const ENGINES: Record<string, 'mysql' | 'postgres'> = {
  mysql: 'mysql',
  mysql2: 'mysql',
  mariadb: 'mysql',
  postgres: 'postgres',
  postgresql: 'postgres',
};

/** Each parameter a URL may carry, by the name it is known under (spellings → one name), and what its value may be. */
interface Parameters {
  names: Record<string, string>;
  values: Record<string, readonly string[] | 'path'>;
  /** MySQL's clients take a mode in any case; libpq and node-postgres only in lower case. */
  foldCase: boolean;
  understood: string;
}
// MySQL's option names take `-` or `_` alike; `sslca` is how Rails and the mysql2 gem (the reference's driver) spell it.
const MYSQL_PARAMETERS: Parameters = {
  names: { 'ssl-mode': 'ssl-mode', ssl_mode: 'ssl-mode', 'ssl-ca': 'ssl-ca', ssl_ca: 'ssl-ca', sslca: 'ssl-ca' },
  values: { 'ssl-mode': MYSQL_SSL_MODES, 'ssl-ca': 'path' },
  foldCase: true,
  understood: 'MySQL/MariaDB understand ssl-mode (DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY) and ssl-ca',
};
// Only the TLS settings: node-postgres would also take statement_timeout, application_name, ... from the URL and override ours.
const POSTGRES_PARAMETERS: Parameters = {
  names: { sslmode: 'sslmode', sslrootcert: 'sslrootcert', sslcert: 'sslcert', sslkey: 'sslkey', uselibpqcompat: 'uselibpqcompat' },
  values: {
    sslmode: ['disable', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'],
    sslrootcert: 'path',
    sslcert: 'path',
    sslkey: 'path',
    uselibpqcompat: ['true', 'false'],
  },
  foldCase: false,
  understood: 'PostgreSQL understands sslmode, sslrootcert, sslcert, sslkey and uselibpqcompat',
};

/**
 * Reads DATABASE_URL, refusing what would be misread: a parameter that is not understood (it would
 * be dropped silently, TLS with it), and a password that is not percent-encoded (its rest would be
 * read as the host, and a DNS error would print it). `fail` throws naming the variable; no message
 * quotes the URL, which holds the password.
 */
export function parseDatabaseUrl(value: string, fail: (expectation: string) => never): DatabaseTarget {
  if (value.startsWith('sqlite:')) {
    const path = value.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') fail('sqlite: needs a file path, e.g. sqlite:data/pwpush.sqlite3');
    return { type: 'sqlite', path };
  }
  const engine = ENGINES[/^([a-z0-9]+):\/\//i.exec(value)?.[1].toLowerCase() ?? ''];
  if (engine === undefined) fail(USAGE);
  // No URL of a database has a fragment: a # is a password's.
  if (value.includes('#')) fail(PERCENT_ENCODE);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail(`${USAGE}; ${PERCENT_ENCODE}`);
  }
  // An @ after the host means the password's / or ? ended the user:password@host part early.
  if (`${url.pathname}${url.search}`.includes('@')) fail(PERCENT_ENCODE);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const socket = engine === 'postgres' && /^%2f/i.test(host); // node-postgres: a Unix socket's directory, encoded
  if (!isIP(host) && !socket && !/^[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?$/i.test(host)) {
    fail(`${USAGE}; the host must be a name or an address (IPv6 in brackets: [::1])`);
  }
  const database = decode(url.pathname.slice(1), fail);
  if (database === '' || database.includes('/')) fail(USAGE);
  const user = decode(url.username, fail);
  const password = decode(url.password, fail);
  if (engine === 'postgres') {
    readParameters(url, POSTGRES_PARAMETERS, fail);
    return { type: 'postgres', url: value };
  }
  const parameters = readParameters(url, MYSQL_PARAMETERS, fail);
  const sslCa = parameters.get('ssl-ca');
  // As MySQL's clients do: a CA alone means checking the server against it.
  const sslMode = (parameters.get('ssl-mode') ?? (sslCa === undefined ? 'preferred' : 'verify_ca')) as MysqlSslMode;
  if (sslCa !== undefined && !sslMode.startsWith('verify_')) {
    fail(
      'ssl-ca is used only with ssl-mode=VERIFY_CA or VERIFY_IDENTITY (PREFERRED and REQUIRED encrypt without checking the certificate)',
    );
  }
  // mysql2 checks a certificate against the name it connected to; given an address it would check the name "localhost".
  if (sslMode === 'verify_identity' && isIP(host) !== 0) {
    fail(
      'ssl-mode=VERIFY_IDENTITY needs the host name the server certificate is issued to, not an IP address (or use VERIFY_CA, which checks the CA only)',
    );
  }
  return { type: 'mysql', url: value, host, port: url.port === '' ? 3306 : Number(url.port), user, password, database, sslMode, sslCa };
}

/**
 * What a server's refusal of the user name or password may come from, said without quoting them:
 * the rule for their special characters, and which of them this URL's user name or password holds
 * as they are (an @ or a : the parser could still place; / # ? stop start-up before any connection).
 */
export function credentialsAdvice(value: string): string {
  const authority = value.slice(value.indexOf('//') + 2).split(/[/?#]/, 1)[0];
  const userinfo = authority.slice(0, Math.max(authority.lastIndexOf('@'), 0));
  const unencoded = [userinfo.includes('@') && 'an @', userinfo.slice(userinfo.indexOf(':') + 1).includes(':') && 'a :'].filter(Boolean);
  const rule = 'in a user name or password, @ : / # ? % must be percent-encoded (p@ss:w/rd%1 as p%40ss%3Aw%2Frd%251; encodeURIComponent does it)';
  return unencoded.length === 0 ? rule : `${rule}; this one has ${unencoded.join(' and ')} left as ${unencoded.length > 1 ? 'they are' : 'it is'}`;
}

function decode(value: string, fail: (expectation: string) => never): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return fail(PERCENT_ENCODE);
  }
}

/** The URL's parameters under their known names, values checked (a mode's in lower case); anything else stops start-up, named. */
function readParameters(url: URL, known: Parameters, fail: (expectation: string) => never): Map<string, string> {
  const read = new Map<string, string>();
  for (const [given, value] of url.searchParams) {
    const name = known.names[given];
    // A name is quoted only when it looks like one, so no stray piece of a password is printed.
    if (name === undefined)
      fail(`${/^[\w.-]{1,40}$/.test(given) ? `unknown parameter "${given}"` : 'a parameter that is not understood'}; ${known.understood}`);
    if (read.has(name)) fail(`parameter ${name} is given twice`);
    const allowed = known.values[name];
    const normalized = allowed !== 'path' && known.foldCase ? value.toLowerCase() : value;
    if (allowed === 'path' ? value === '' : !allowed.includes(normalized)) {
      fail(
        allowed === 'path'
          ? `${given} needs a file path`
          : `${given} must be one of ${allowed.map((v) => (known.foldCase ? v.toUpperCase() : v)).join(', ')}`,
      );
    }
    read.set(name, normalized);
  }
  return read;
}
