import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client } from '../support/http';
import { freePort } from '../support/helpers';
import { failedStart, runNode, SERVER_MAIN, startServer } from '../support/server-process';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { TEST_MASTER_KEY } from '../support/test-app';

const tempDir = () => mkdtempSync(join(tmpdir(), 'pwpush-proc-'));

/**
 * The server process's settings: what it refuses to start with, naming the setting and never
 * echoing a secret, and where it reads them from (_FILE variables, a .env).
 * @one-engine Settings are read and checked before any SQL, alike on every engine; what the server
 * does with each engine's database is server-process.e2e-spec.ts and the rest of the e2e suite.
 */
describe('the server process', () => {
  let database: TestDatabase;

  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(() => database.drop());

  it.each([
    ['PORT', 'eighty'],
    ['PWP__PW__EXPIRE_AFTER_DAYS_DEFAULT', 'abc'],
    ['PWP__PW__EXPIRE_AFTER_VIEWS_MAX', '1000'],
    ['PWP__ALLOW_ANONYMOUS', 'maybe'],
    ['PWPUSH_MASTER_KEY', 'short'],
    ['TRUST_PROXY', '10.0.0.0/99'],
    ['LOG_LEVEL', 'loud'],
    ['PWP__PURGE_AFTER', '3 fortnights'],
    ['PWP__PURGE_AFTER', 'soon'],
    ['EXPIRY_SWEEP_INTERVAL_SECONDS', '0'],
  ])('refuses to start when %s=%s, naming the variable', async (name, value) => {
    const { code, stderr } = await runNode(SERVER_MAIN, [], { DATABASE_URL: database.url, DATA_DIR: tempDir(), [name]: value });
    expect(code).not.toBe(0);
    expect(stderr).toContain(`Invalid setting ${name}`);
  });

  it('does not echo a bad DATABASE_URL, which may hold a password', async () => {
    const { code, stderr } = await runNode(SERVER_MAIN, [], { DATABASE_URL: 'mssql://admin:hunter2-secret@db/x' });
    expect(code).not.toBe(0);
    expect(stderr).toContain('Invalid setting DATABASE_URL');
    expect(stderr).not.toContain('hunter2-secret');
  });

  it('refuses to start in production without PWPUSH_MASTER_KEY', async () => {
    const { code, stderr } = await runNode(SERVER_MAIN, [], { NODE_ENV: 'production', DATABASE_URL: database.url, DATA_DIR: tempDir() });
    expect(code).not.toBe(0);
    expect(stderr).toContain('PWPUSH_MASTER_KEY');
  });

  describe('a failure to start', () => {
    const keyed = () => ({ DATABASE_URL: database.url, DATA_DIR: tempDir(), PWPUSH_MASTER_KEY: TEST_MASTER_KEY });

    it.each([
      ['MySQL', 'mysql'],
      ['PostgreSQL', 'postgres'],
    ])('says when the %s database refuses the connection, and to check DATABASE_URL', async (engine, scheme) => {
      const port = await freePort();
      const msg = await failedStart({ ...keyed(), DATABASE_URL: `${scheme}://pwpush:Hunter2-Secret@127.0.0.1:${port}/pwpush` });
      expect(msg).toBe(`Failed to start: Cannot connect to the ${engine} database at 127.0.0.1:${port} (ECONNREFUSED): nothing accepts connections on that host and port. Check DATABASE_URL.`);
    });

    it('names DATA_DIR when the data directory cannot be made', async () => {
      const file = join(tempDir(), 'a-file');
      writeFileSync(file, '');
      const msg = await failedStart({ DATABASE_URL: database.url, DATA_DIR: join(file, 'data') });
      expect(msg).toMatch(/^Failed to start: Cannot \w+ .*a-file\/data\/master\.key \(a part of the path is not a directory\): set DATA_DIR \(now .*a-file\/data\) to a directory this process .*can write\.$/);
    });

    it('names DATA_DIR and DATABASE_URL when, both unset in production, their directory data/ cannot be made', async () => {
      const cwd = tempDir();
      writeFileSync(join(cwd, 'data'), '');
      const msg = await failedStart({ NODE_ENV: 'production', PWPUSH_MASTER_KEY: TEST_MASTER_KEY }, cwd);
      expect(msg).toContain(`Failed to start: Cannot create directory ${join(cwd, 'data')} (a file is in the way): set DATA_DIR (now data) to a directory`);
      expect(msg).toContain('set DATABASE_URL (now sqlite:data/pwpush.sqlite3) to a MySQL or PostgreSQL URL, or to sqlite:<a file in a directory');
    });

    it('names PORT when the port is taken', async () => {
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, resolve));
      const { port } = taken.address() as { port: number };
      try {
        expect(await failedStart({ ...keyed(), PORT: String(port) })).toBe(`Failed to start: Cannot listen on port ${port} (it is in use): set PORT to a free port.`);
      } finally {
        taken.close();
      }
    });

    it.each([
      [{ TRUST_PROXY: 'ingress.internal' }, 'Invalid setting TRUST_PROXY: '],
      [{ NODE_ENV: 'staging' }, 'Invalid setting NODE_ENV: must be production, development or test'],
      [{ PWPUSH_MASTER_KEY: '', PWPUSH_MASTER_KEY_FILE: '/nonexistent/master.key' }, 'Invalid setting PWPUSH_MASTER_KEY_FILE: cannot read /nonexistent/master.key (no such file).'],
      [{ DATABASE_URL_FILE: '/nonexistent/url' }, 'Invalid setting DATABASE_URL_FILE: DATABASE_URL is set as well; set one of them.'],
    ])('names the setting: %j', async (env, message) => {
      expect(await failedStart({ ...keyed(), ...env })).toContain(`Failed to start: ${message}`);
    });
  });

  it('reads secret settings from the files their _FILE variables name, and never prints them', async () => {
    const secrets = tempDir();
    writeFileSync(join(secrets, 'DATABASE_URL'), `${database.url}\n`);
    writeFileSync(join(secrets, 'PWPUSH_MASTER_KEY'), `${TEST_MASTER_KEY}\n`);
    const env = { NODE_ENV: 'production', DATA_DIR: tempDir(), DATABASE_URL_FILE: join(secrets, 'DATABASE_URL'), PWPUSH_MASTER_KEY_FILE: join(secrets, 'PWPUSH_MASTER_KEY') };
    const server = await startServer(env);
    const { url_token } = await client(server.url).createPush({ payload: 'from a file-configured server' });
    expect((await client(server.url).get(`/api/v2/pushes/${url_token}`)).body.payload).toBe('from a file-configured server');
    expect(await server.stop()).toBe(0);
    expect(server.output()).not.toContain(TEST_MASTER_KEY);
    // The same database and key without the files: the push is there and decrypts.
    const again = await startServer({ NODE_ENV: 'production', DATA_DIR: tempDir(), DATABASE_URL: database.url, PWPUSH_MASTER_KEY: TEST_MASTER_KEY });
    expect((await client(again.url).get(`/api/v2/pushes/${url_token}/preview`)).status).toBe(200);
    await again.stop();
  });

  it('reads a .env in its working directory, the environment winning over it', async () => {
    const cwd = tempDir();
    const file = {
      DATABASE_URL: database.url,
      DATA_DIR: tempDir(),
      PWPUSH_MASTER_KEY: TEST_MASTER_KEY,
      PWP__PW__EXPIRE_AFTER_DAYS_DEFAULT: '3',
      PWP__PW__EXPIRE_AFTER_VIEWS_DEFAULT: '9',
    };
    writeFileSync(join(cwd, '.env'), `# as copied from .env.example\n${Object.entries(file).map(([name, value]) => `${name}=${value}`).join('\n')}\n`);
    const server = await startServer({ PWP__PW__EXPIRE_AFTER_VIEWS_DEFAULT: '2' }, { cwd });
    const push = await client(server.url).createPush({ payload: 'defaults from .env' });
    await server.stop();
    expect([push.expire_after_days, push.expire_after_views]).toEqual([3, 2]);
  });

});
