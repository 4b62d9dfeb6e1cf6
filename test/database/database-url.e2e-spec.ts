import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client } from '../support/http';
import { failedStart } from '../support/server-process';
import { TcpProxy } from '../support/tcp-proxy';
import { startTestApp, TEST_MASTER_KEY } from '../support/test-app';
import { createTestDatabase, E2E_ENGINE } from '../support/test-database';

/** DATABASE_URL as the operator writes it: what is refused before any connection, and hosts given as IPv6 literals. */
describe('DATABASE_URL', () => {
  describe('refuses to start before connecting, in one line naming DATABASE_URL and never the password', () => {
    // Port 9 on this machine: nothing listens, so a URL taken apart wrongly fails fast rather than hanging.
    it.each([
      // The password's / ended the host part early, and its piece after the @ was looked up as a host name.
      [
        'a MySQL password with @ and / in it',
        'mysql://admin:p@hunter2/x@127.0.0.1:9/pwpush',
        /^Failed to start: Invalid setting DATABASE_URL: cannot tell the password from the host: percent-encode/m,
      ],
      // The password's # began a fragment: "@127.0.0.1..." was the host name, as a DNS error would print.
      [
        'a password with @ : / # in it',
        'postgres://admin:p@ss:w/rd#hunter2@127.0.0.1:9/pwpush',
        /^Failed to start: Invalid setting DATABASE_URL: cannot tell the password from the host: percent-encode/m,
      ],
      [
        'a PostgreSQL parameter it does not know',
        'postgres://admin:hunter2@127.0.0.1:9/pwpush?bogus=1',
        /^Failed to start: Invalid setting DATABASE_URL: unknown parameter "bogus"; PostgreSQL understands sslmode/m,
      ],
    ])('%s', async (_case, url, message) => {
      const msg = await failedStart({
        DATABASE_URL: url,
        DATA_DIR: mkdtempSync(join(tmpdir(), 'pwpush-url-')),
        PWPUSH_MASTER_KEY: TEST_MASTER_KEY,
      });
      expect(msg).toMatch(message);
      expect(msg).not.toContain('hunter2');
      expect(msg).not.toMatch(/ENOTFOUND|getaddrinfo|ECONNREFUSED/);
    });
  });

  if (E2E_ENGINE === 'mysql') {
    // The machine's PostgreSQL trusts every local connection, whatever the password: MySQL refuses a password its user has not.
    it('says, when the server refuses the password, that its special characters must be percent-encoded, and which this one has as they are', async () => {
      const database = await createTestDatabase();
      try {
        const user = decodeURIComponent(new URL(database.url).username);
        const msg = await failedStart({
          DATABASE_URL: database.url.replace(`://${user}@`, `://${user}:Hunter2@Secret@`),
          DATA_DIR: mkdtempSync(join(tmpdir(), 'pwpush-url-')),
          PWPUSH_MASTER_KEY: TEST_MASTER_KEY,
        });
        expect(msg).toBe(
          'Failed to start: Cannot connect to the MySQL database (ER_ACCESS_DENIED_ERROR): the server refused the user name or password. Check DATABASE_URL: ' +
            'in a user name or password, @ : / # ? % must be percent-encoded (p@ss:w/rd%1 as p%40ss%3Aw%2Frd%251; encodeURIComponent does it); this one has an @ left as it is.',
        );
        expect(msg).not.toMatch(/Hunter2|Secret/);
      } finally {
        await database.drop();
      }
    });
  }

  if (E2E_ENGINE !== 'sqlite') {
    // The machine's servers listen on 127.0.0.1 only: a proxy on ::1 puts the app's connections on IPv6.
    it(`reaches ${E2E_ENGINE} at an IPv6 literal host, [::1]${E2E_ENGINE === 'mysql' ? ", under the reference's mysql2:// scheme" : ''}`, async () => {
      const database = await createTestDatabase();
      const target = new URL(database.url);
      const proxy = await TcpProxy.start(
        { host: target.hostname, port: Number(target.port || (E2E_ENGINE === 'postgres' ? 5432 : 3306)) },
        '::1',
      );
      try {
        const url = proxy.via(database.url).replace(/^mysql:/, 'mysql2:');
        expect(url).toMatch(/^(mysql2|postgres):\/\/[^@]+@\[::1\]:\d+\/pwpush_e2e_/);
        const app = await startTestApp({}, { ...database, url });
        try {
          const api = client(app.baseUrl);
          const { url_token } = await api.createPush({ payload: 'over IPv6' });
          expect((await api.get(`/api/v2/pushes/${url_token}`)).body.payload).toBe('over IPv6');
        } finally {
          await app.close();
        }
      } finally {
        await proxy.close();
        await database.drop();
      }
    });
  }
});
