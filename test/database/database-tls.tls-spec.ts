import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client } from '../support/http';
import { createCa, PrivateMariaDb, startPrivateMariaDb, TestCa } from '../support/private-mariadb';
import { failedStart } from '../support/server-process';
import { startTestApp, TestApp, TEST_MASTER_KEY } from '../support/test-app';
import type { TestDatabase } from '../support/test-database';

/**
 * TLS from the app to MySQL/MariaDB, against MariaDB servers this file starts itself (so it runs
 * once, by test/jest-tls.config.js, not once per engine):
 * - `tls`: TLS with a certificate for "localhost", signed by a CA made here;
 * - `strict`: require_secure_transport=ON, with a certificate for "db.invalid" from the same CA;
 * - `clear`: no TLS at all.
 * Encryption is proven on the app's own connections: `SHOW STATUS LIKE 'Ssl_cipher'`.
 */
describe('TLS to MySQL/MariaDB', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pwpush-tls-'));
  const PASSWORD = 'p@ss:w/rd#?%-hunter2';
  let ca: TestCa;
  let otherCa: TestCa;
  let tls: PrivateMariaDb;
  let strict: PrivateMariaDb;
  let clear: PrivateMariaDb;
  const started: PrivateMariaDb[] = [];

  beforeAll(async () => {
    [ca, otherCa] = await Promise.all([createCa(dir, 'pwpush-test-ca'), createCa(dir, 'another-ca')]);
    const [forLocalhost, forOtherName] = await Promise.all([ca.issue('localhost', ['localhost']), ca.issue('db-invalid', ['db.invalid'])]);
    const subdir = (name: string) => join(dir, name);
    // Settled, not raced: each server that started is stopped after, even when another did not start.
    const starts = await Promise.allSettled([
      startPrivateMariaDb(subdir('tls'), { certificate: { ...forLocalhost, ca: ca.cert } }),
      startPrivateMariaDb(subdir('strict'), { certificate: { ...forOtherName, ca: ca.cert }, requireSecureTransport: true }),
      startPrivateMariaDb(subdir('clear'), {}),
    ]);
    for (const start of starts) if (start.status === 'fulfilled') started.push(start.value);
    [tls, strict, clear] = starts.map((start) => {
      if (start.status === 'rejected') throw start.reason;
      return start.value;
    });
    for (const server of [tls, strict, clear]) {
      await server.sql('CREATE DATABASE pwpush CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
      await server.sql(`CREATE USER pwpush IDENTIFIED BY '${PASSWORD.replace(/'/g, "''")}'`);
      await server.sql('GRANT ALL ON pwpush.* TO pwpush');
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.all(started.map((server) => server.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  /** The app's own connection: its TLS cipher ('' in clear), user and peer address as the server sees them. */
  async function connectionOf(app: TestApp): Promise<{ cipher: string; user: string; peer: string }> {
    const [status] = await app.query<{ Value: string }>("SHOW SESSION STATUS LIKE 'Ssl_cipher'");
    const [who] = await app.query<{ user: string; peer: string }>(
      'SELECT CURRENT_USER() AS user, host AS peer FROM information_schema.processlist WHERE id = CONNECTION_ID()',
    );
    return { cipher: status.Value, ...who };
  }

  async function withApp<T>(database: TestDatabase, work: (app: TestApp) => Promise<T>): Promise<T> {
    const app = await startTestApp({}, database);
    try {
      return await work(app);
    } finally {
      await app.close();
    }
  }

  const encrypted = expect.stringMatching(/^TLS_|^ECDHE-|^AES/);

  it('REQUIRED encrypts the connection, and the app works over it', async () => {
    await withApp(tls.database('pwpush', { query: '?ssl-mode=REQUIRED' }), async (app) => {
      expect((await connectionOf(app)).cipher).toEqual(encrypted);
      const api = client(app.baseUrl);
      const { url_token } = await api.createPush({ payload: 'over TLS' });
      expect((await api.get(`/api/v2/pushes/${url_token}`)).body.payload).toBe('over TLS');
    });
  });

  it('PREFERRED, the default, encrypts when the server offers TLS and goes in clear when it does not', async () => {
    for (const server of [tls, strict]) {
      await withApp(server.database('pwpush'), async (app) => expect((await connectionOf(app)).cipher).toEqual(encrypted));
    }
    await withApp(clear.database('pwpush', { query: '?ssl-mode=preferred' }), async (app) =>
      expect((await connectionOf(app)).cipher).toBe(''),
    );
  });

  it('DISABLED goes in clear even when the server offers TLS', async () => {
    await withApp(tls.database('pwpush', { query: '?ssl-mode=DISABLED' }), async (app) =>
      expect((await connectionOf(app)).cipher).toBe(''),
    );
  });

  it('VERIFY_CA connects with the CA that signed the certificate, whatever name the certificate is for', async () => {
    await withApp(strict.database('pwpush', { query: `?ssl-mode=VERIFY_CA&ssl-ca=${ca.cert}` }), async (app) =>
      expect((await connectionOf(app)).cipher).toEqual(encrypted),
    );
  });

  it("VERIFY_IDENTITY connects to the name the certificate is for, under the reference's mysql2:// scheme", async () => {
    const database = tls.database('pwpush', { host: 'localhost', query: `?ssl-mode=verify_identity&ssl-ca=${ca.cert}` });
    await withApp({ ...database, url: database.url.replace(/^mysql:/, 'mysql2:') }, async (app) =>
      expect((await connectionOf(app)).cipher).toEqual(encrypted),
    );
  });

  it('connects to an IPv6 literal host, [::1]', async () => {
    await withApp(tls.database('pwpush', { host: '::1', query: `?ssl-ca=${ca.cert}` }), async (app) => {
      const connection = await connectionOf(app);
      expect(connection.peer).toMatch(/^::1:\d+$/);
      expect(connection.cipher).toEqual(encrypted);
    });
  });

  it('connects with a percent-encoded password holding @ : / # ? %', async () => {
    const database = tls.database('pwpush', { user: `pwpush:${encodeURIComponent(PASSWORD)}`, query: '?ssl-mode=REQUIRED' });
    await withApp(database, async (app) => expect((await connectionOf(app)).user).toBe('pwpush@%'));
  });

  describe('refuses to start, in one line naming DATABASE_URL and never the password', () => {
    const user = `pwpush:${encodeURIComponent(PASSWORD)}`;
    it.each<[string, () => string, string]>([
      [
        'VERIFY_CA with a CA that did not sign the certificate',
        () => tls.database('pwpush', { user, query: `?ssl-mode=VERIFY_CA&ssl-ca=${otherCa.cert}` }).url,
        "Invalid setting DATABASE_URL: the database server's certificate was refused (",
      ],
      [
        'VERIFY_IDENTITY to a name the certificate is not for',
        () => strict.database('pwpush', { user, host: 'localhost', query: `?ssl-mode=VERIFY_IDENTITY&ssl-ca=${ca.cert}` }).url,
        "Invalid setting DATABASE_URL: the database server's certificate was refused (Hostname/IP does not match certificate's altnames",
      ],
      [
        'VERIFY_IDENTITY to an IP address',
        () => tls.database('pwpush', { user, query: `?ssl-mode=VERIFY_IDENTITY&ssl-ca=${ca.cert}` }).url,
        'Invalid setting DATABASE_URL: ssl-mode=VERIFY_IDENTITY needs the host name the server certificate is issued to, not an IP address',
      ],
      [
        'a CA file that cannot be read',
        () => tls.database('pwpush', { user, query: `?ssl-mode=VERIFY_CA&ssl-ca=${join(dir, 'missing.pem')}` }).url,
        `Invalid setting DATABASE_URL: cannot read the ssl-ca file ${join(dir, 'missing.pem')} (ENOENT).`,
      ],
      [
        'a connection in clear to a server with require_secure_transport=ON',
        () => strict.database('pwpush', { user, query: '?ssl-mode=DISABLED' }).url,
        'Invalid setting DATABASE_URL: the database server accepts only encrypted connections (require_secure_transport=ON); add ?ssl-mode=VERIFY_IDENTITY',
      ],
      [
        'REQUIRED to a server without TLS',
        () => clear.database('pwpush', { user, query: '?ssl-mode=REQUIRED' }).url,
        'Invalid setting DATABASE_URL: its ssl-mode needs TLS, which the database server does not offer.',
      ],
      // Each of these went in clear before: the parameter was dropped without a word.
      [
        '?ssl=true',
        () => tls.database('pwpush', { user, query: '?ssl=true' }).url,
        'Invalid setting DATABASE_URL: unknown parameter "ssl"; MySQL/MariaDB understand ssl-mode',
      ],
      [
        '?sslmode=require',
        () => tls.database('pwpush', { user, query: '?sslmode=require' }).url,
        'Invalid setting DATABASE_URL: unknown parameter "sslmode"',
      ],
      [
        '?bogus=1',
        () => tls.database('pwpush', { user, query: '?ssl-mode=REQUIRED&bogus=1' }).url,
        'Invalid setting DATABASE_URL: unknown parameter "bogus"',
      ],
    ])('%s', async (_case, url, message) => {
      const msg = await failedStart({ DATABASE_URL: url(), DATA_DIR: join(dir, 'app'), PWPUSH_MASTER_KEY: TEST_MASTER_KEY });
      expect(msg).toContain(`Failed to start: ${message}`);
      expect(msg).not.toContain(PASSWORD);
      expect(msg).not.toContain(encodeURIComponent(PASSWORD));
    });
  });
});
