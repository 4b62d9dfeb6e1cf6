import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createConnection } from 'mysql2/promise';
import { freePort } from './helpers';
import type { TestDatabase } from './test-database';

const run = promisify(execFile);

export interface Certificate {
  cert: string;
  key: string;
}

/** A certificate authority made with openssl, files in `dir`: `issue` signs a server certificate for the given names. */
export interface TestCa extends Certificate {
  issue(name: string, dnsNames: string[]): Promise<Certificate>;
}

export async function createCa(dir: string, name: string): Promise<TestCa> {
  const ca = { cert: join(dir, `${name}.pem`), key: join(dir, `${name}.key`) };
  await run('openssl', [...NEW_KEY, '-x509', '-days', '1', '-subj', `/CN=${name}`, '-keyout', ca.key, '-out', ca.cert]);
  return {
    ...ca,
    issue: async (server, dnsNames) => {
      const issued = { cert: join(dir, `${server}.pem`), key: join(dir, `${server}.key`) };
      const request = join(dir, `${server}.csr`);
      const san = `subjectAltName=${dnsNames.map((n) => `DNS:${n}`).join(',')}`;
      await run('openssl', [...NEW_KEY, '-subj', `/CN=${dnsNames[0]}`, '-addext', san, '-keyout', issued.key, '-out', request]);
      await run('openssl', [
        'x509',
        '-req',
        '-in',
        request,
        '-CA',
        ca.cert,
        '-CAkey',
        ca.key,
        '-CAcreateserial',
        '-copy_extensions',
        'copy',
        '-days',
        '1',
        '-out',
        issued.cert,
      ]);
      return issued;
    },
  };
}

const NEW_KEY = ['req', '-new', '-nodes', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'];

export interface PrivateMariaDb {
  port: number;
  /** `mysql://root@<host>:<port>/<database>` plus the query, as a test database the app can be started on. */
  database(name: string, options?: { host?: string; query?: string; user?: string }): TestDatabase;
  /** One statement as root over the Unix socket (which require_secure_transport allows). */
  sql(statement: string): Promise<unknown>;
  stop(): Promise<void>;
}

/**
 * A MariaDB server of the test's own (mariadbd beside the machine's, as root since tests run as
 * root): a fresh data directory from mariadb-install-db, a free port on 127.0.0.1 and ::1, TLS with
 * `certificate` (none: TLS off), and require_secure_transport as asked. It ends with `stop()`,
 * or with the test process.
 */
export async function startPrivateMariaDb(
  dir: string,
  options: { certificate?: Certificate & { ca: string }; requireSecureTransport?: boolean },
): Promise<PrivateMariaDb> {
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  // Small redo log and buffer pool: the servers hold a few tables for a minute. A temporary
  // directory of its own: servers installed at once would collide on their temporary tables' names in /tmp.
  const common = [
    '--no-defaults',
    `--datadir=${dataDir}`,
    `--tmpdir=${dir}`,
    '--user=root',
    '--innodb-log-file-size=4M',
    '--innodb-buffer-pool-size=16M',
  ];
  await run('mariadb-install-db', [...common, '--auth-root-authentication-method=normal', '--skip-test-db']);
  const port = await freePort();
  const socket = join(dir, 'mariadb.sock');
  const { certificate, requireSecureTransport = false } = options;
  const tls = certificate
    ? [`--ssl-ca=${certificate.ca}`, `--ssl-cert=${certificate.cert}`, `--ssl-key=${certificate.key}`]
    : ['--skip-ssl'];
  const server = spawn(
    'mariadbd',
    [
      ...common,
      `--port=${port}`,
      '--bind-address=127.0.0.1,::1',
      // Peers by address ("::1:51234" in the process list), users by root@127.0.0.1, root@::1 and pwpush@%.
      '--skip-name-resolve',
      `--socket=${socket}`,
      `--pid-file=${join(dir, 'mariadb.pid')}`,
      ...tls,
      `--require-secure-transport=${requireSecureTransport ? 'ON' : 'OFF'}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const stopWithTest = () => server.kill('SIGKILL');
  process.once('exit', stopWithTest);
  await ready(server);
  const sql = async (statement: string) => {
    const connection = await createConnection({ socketPath: socket, user: 'root' });
    try {
      return (await connection.query(statement))[0];
    } finally {
      await connection.end();
    }
  };
  return {
    port,
    sql,
    database: (name, { host = '127.0.0.1', query = '', user = 'root' } = {}) => ({
      url: `mysql://${user}@${host.includes(':') ? `[${host}]` : host}:${port}/${name}${query}`,
      engine: 'mysql',
      sql: () => Promise.reject(new Error('Query through the app (TestApp.query), over the connection under test.')),
      drop: async () => undefined,
    }),
    stop: async () => {
      process.removeListener('exit', stopWithTest);
      if (server.exitCode !== null) return;
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    },
  };
}

/** Resolves when mariadbd says it is ready for connections; rejects with its log if it exits first or takes over 30 s. */
function ready(server: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => {
      server.kill('SIGKILL');
      reject(new Error(`mariadbd was not ready within 30 s:\n${log}`));
    }, 30_000);
    server.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (!log.includes('ready for connections')) return;
      clearTimeout(timer);
      resolve();
    });
    server.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mariadbd exited with ${code}:\n${log}`));
    });
  });
}
