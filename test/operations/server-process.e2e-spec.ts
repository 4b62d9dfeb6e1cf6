import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client } from '../support/http';
import { CLI_MAIN, runNode, startServer } from '../support/server-process';
import { createTestDatabase, E2E_ENGINE, TestDatabase } from '../support/test-database';
import { TEST_MASTER_KEY } from '../support/test-app';

const tempDir = () => mkdtempSync(join(tmpdir(), 'pwpush-proc-'));

describe('the server process', () => {
  let database: TestDatabase;

  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(() => database.drop());

  it('generates a development key once, warns about it, and reuses it', async () => {
    const dataDir = tempDir();
    const first = await startServer({ DATABASE_URL: database.url, DATA_DIR: dataDir });
    const { url_token } = await client(first.url).createPush({ payload: 'kept across restarts' });
    await first.stop();
    expect(first.output()).toContain('PWPUSH_MASTER_KEY is not set');
    const keyFile = join(dataDir, 'master.key');
    expect(readFileSync(keyFile, 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);

    const second = await startServer({ DATABASE_URL: database.url, DATA_DIR: dataDir });
    expect((await client(second.url).get(`/api/v2/pushes/${url_token}`)).body.payload).toBe('kept across restarts');
    await second.stop();
    expect(second.output()).not.toContain('PWPUSH_MASTER_KEY is not set');
  });

  it('warns at start-up, naming the settings, when mail is configured but nothing says which host its links name', async () => {
    const mail = { PWP__MAIL__SMTP_ADDRESS: '127.0.0.1', PWP__MAIL__MAILER_SENDER: 'pwpush@example.com' };
    const env = { DATABASE_URL: database.url, DATA_DIR: tempDir(), PWPUSH_MASTER_KEY: TEST_MASTER_KEY, NOTIFICATIONS_WORKER_ENABLED: 'false', ...mail };
    const unhosted = await startServer(env);
    expect((await client(unhosted.url).get('/api/v2/version')).body.features.pushes.email_auto_dispatch).toBe(false);
    await unhosted.stop();
    const [warning] = unhosted.output().trim().split('\n').map((line) => JSON.parse(line) as { level: number; msg: string }).filter((entry) => entry.msg.includes('PWP__HOST_DOMAIN'));
    expect(warning).toMatchObject({ level: 40, msg: expect.stringContaining('PWP__OVERRIDE_BASE_URL') });

    const hosted = await startServer({ ...env, PWP__HOST_DOMAIN: 'pwpush.example.com' });
    expect((await client(hosted.url).get('/api/v2/version')).body.features.pushes.email_auto_dispatch).toBe(true);
    await hosted.stop();
    expect(hosted.output()).not.toContain('PWP__HOST_DOMAIN');
  });

  it('logs JSON lines with request ids and never a payload, note, passphrase or token', async () => {
    const secrets = { payload: 'Payload-9d41-Marmot', note: 'Note-2b7c-Ocelot', passphrase: 'Pass-77ae-Tapir' };
    const server = await startServer({ DATABASE_URL: database.url, DATA_DIR: tempDir(), PWPUSH_MASTER_KEY: TEST_MASTER_KEY, LOG_LEVEL: 'debug' });
    const api = client(server.url);
    const push = await api.createPush({ ...secrets, name: 'n' });
    expect((await api.get(`/api/v2/pushes/${push.url_token}?passphrase=wrong-guess-Lynx`)).status).toBe(401);
    expect((await api.get(`/api/v2/pushes/${push.url_token}?passphrase=${secrets.passphrase}`)).body.payload).toBe(secrets.payload);
    const traced = await api.get(`/api/v2/pushes/${push.url_token}`, { 'x-passphrase': secrets.passphrase, 'x-request-id': 'trace-abc-123' });
    expect(traced.headers.get('x-request-id')).toBe('trace-abc-123');
    await api.get(`/api/v2/pushes/${push.url_token}/preview`);
    await api.delete(`/api/v2/pushes/${push.url_token}?passphrase=${secrets.passphrase}`);
    await api.raw('POST', '/api/v2/pushes', { body: `{"push":{"payload":"${secrets.payload}"`, headers: { 'content-type': 'application/json' } });
    expect(await server.stop()).toBe(0);

    const output = server.output();
    for (const secret of [...Object.values(secrets), 'wrong-guess-Lynx', push.url_token]) expect(output).not.toContain(secret);
    const lines = output.trim().split('\n');
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    const requests = lines.map((line) => JSON.parse(line) as { req?: { id: string; url: string } }).filter((entry) => entry.req);
    expect(requests.length).toBeGreaterThanOrEqual(6);
    expect(requests.map((entry) => entry.req!.id)).toContain('trace-abc-123');
    expect(requests.map((entry) => entry.req!.url)).toContain('/api/v2/pushes/:url_token');
  });

  it('leaves migrations to `migrations:run` when DB_MIGRATE_ON_START=false', async () => {
    const env = { DATABASE_URL: database.url, DATA_DIR: tempDir(), PWPUSH_MASTER_KEY: TEST_MASTER_KEY };
    const server = await startServer({ ...env, DB_MIGRATE_ON_START: 'false' });
    await server.stop();
    expect(server.output()).toContain('Database migrations are pending');

    const migrate = await runNode(CLI_MAIN, ['migrations:run'], env);
    expect(migrate.code).toBe(0);
    expect(JSON.parse(migrate.stdout)).toEqual({ migrations: 'up-to-date', pending: false });
    const again = await startServer({ ...env, DB_MIGRATE_ON_START: 'false' });
    expect((await client(again.url).post('/api/v2/pushes', { push: { payload: 'x' } })).status).toBe(201);
    await again.stop();
  });

  // Replicas share a database server (MySQL, PostgreSQL); SQLite is the single-process embedded default.
  if (E2E_ENGINE !== 'sqlite') {
    it(`starts three replicas at once on an empty ${E2E_ENGINE} schema`, async () => {
    const env = { DATABASE_URL: database.url, DATA_DIR: tempDir(), PWPUSH_MASTER_KEY: TEST_MASTER_KEY };
    const servers = await Promise.all([startServer(env), startServer(env), startServer(env)]);
    const created = await Promise.all(servers.map((s, i) => client(s.url).createPush({ payload: `replica-${i}` })));
    const readBack = await client(servers[0].url).get(`/api/v2/pushes/${created[2].url_token}`);
    expect(readBack.body.payload).toBe('replica-2');
    await Promise.all(servers.map((s) => s.stop()));
    expect(servers.filter((s) => /Applied \d+ migration\(s\)/.test(s.output()))).toHaveLength(1);
    });
  }
});
