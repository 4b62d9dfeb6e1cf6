import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecurityLog, SessionsService, UsersService } from '@app/auth';
import { client } from '../support/http';
import { describeCliRefusals } from '../support/cli-refusals';
import { CLI_MAIN, runNode } from '../support/server-process';
import { startTestApp, TEST_MASTER_KEY, TestApp } from '../support/test-app';
import { createTestDatabase, TestDatabase } from '../support/test-database';

describe('administration CLI', () => {
  let database: TestDatabase;
  let app: TestApp | undefined;
  let env: Record<string, string>;

  const cli = (...args: string[]) => runNode(CLI_MAIN, args, env);
  const json = (stdout: string) => stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  const status = async (token: string) => (await client(app!.baseUrl).get('/api/v2/pushes/active', { authorization: `Bearer ${token}` })).status;

  beforeEach(async () => {
    database = await createTestDatabase('migrated');
    env = { DATABASE_URL: database.url, DATA_DIR: mkdtempSync(join(tmpdir(), 'pwpush-cli-')), PWPUSH_MASTER_KEY: TEST_MASTER_KEY };
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await database.drop();
  });

  it('creates a user and prints exactly one JSON object with a working token', async () => {
    const created = await cli('users:create', '--email', 'Ops@Example.com', '--password', 'correct horse');
    expect(created.code).toBe(0);
    expect(created.stdout.trim().split('\n')).toHaveLength(1);
    const [body] = json(created.stdout);
    expect(Object.keys(body).sort()).toEqual(['api_token', 'email']);
    expect(body.email).toBe('ops@example.com');

    app = await startTestApp({}, database);
    expect(await status(body.api_token as string)).toBe(200);
    const [user] = await app.query('SELECT password_hash FROM users');
    expect(user.password_hash).toMatch(/^\$argon2id\$/);
  });

  it('sets and resets a password with users:password, read from standard input', async () => {
    await cli('users:create', '--email', 'pw@example.com');
    const set = await runNode(CLI_MAIN, ['users:password', '--email', 'PW@example.com'], env, { input: 'first password\n' });
    expect([set.code, json(set.stdout)]).toEqual([0, [{ email: 'pw@example.com', password: 'set', sessions_ended: 0 }]]);
    expect(set.stdout + set.stderr).not.toContain('first password');
    app = await startTestApp({}, database);
    const users = app.service(UsersService);
    expect(await users.checkPassword('pw@example.com', 'first password')).toMatchObject({ email: 'pw@example.com' });
    const session = await app.service(SessionsService).start(await users.find('pw@example.com'));
    const reset = await runNode(CLI_MAIN, ['users:reset-password', '--email', 'pw@example.com'], env, { input: 'second password' });
    expect(json(reset.stdout)).toEqual([{ email: 'pw@example.com', password: 'set', sessions_ended: 1 }]);
    expect(await app.service(SessionsService).userOf(session)).toBeNull();
    expect(await users.checkPassword('pw@example.com', 'first password')).toBeNull();
    expect(await users.checkPassword('pw@example.com', 'second password')).toMatchObject({ email: 'pw@example.com' });

    const short = await runNode(CLI_MAIN, ['users:password', '--email', 'pw@example.com'], env, { input: 'short' });
    expect([short.code, short.stderr.trim()]).toEqual([2, 'The password must have at least 10 characters.']);
    const unknown = await runNode(CLI_MAIN, ['users:password', '--email', 'nobody@example.com'], env, { input: 'long enough' });
    expect([unknown.code, unknown.stderr.trim()]).toEqual([2, 'No user with the email nobody@example.com.']);
  });

  it('rotates with users:token, lists without secrets, and revokes', async () => {
    const [first] = json((await cli('users:create', '--email', 'a@example.com')).stdout);
    const issued = await cli('users:token', '--email', 'a@example.com');
    expect(issued.code).toBe(0);
    const [second] = json(issued.stdout);
    expect(second.api_token).not.toEqual(first.api_token);
    const [named] = json((await cli('users:token', '--email', 'a@example.com', '--name', 'ci')).stdout);
    await cli('users:create', '--email', 'b@example.com');

    const listed = await cli('users:list');
    expect(listed.code).toBe(0);
    const users = json(listed.stdout);
    expect(users.map((u) => [u.email, u.tokens])).toEqual([
      ['a@example.com', 2],
      ['b@example.com', 1],
    ]);
    for (const secret of [first.api_token, second.api_token, named.api_token]) expect(listed.stdout).not.toContain(String(secret));
    expect(listed.stdout).not.toMatch(/hash|token"/);

    app = await startTestApp({}, database);
    expect([await status(first.api_token as string), await status(second.api_token as string), await status(named.api_token as string)]).toEqual([401, 200, 200]);
    await app.close();
    app = undefined;

    const revoked = await cli('users:revoke-tokens', '--email', 'a@example.com');
    expect(json(revoked.stdout)).toEqual([{ email: 'a@example.com', revoked: 2 }]);
    app = await startTestApp({}, database);
    expect(await status(second.api_token as string)).toBe(401);
  });

  it('disables a user: their sessions and tokens end at once, sign-in is refused, the list says so; enable lets them sign in again', async () => {
    const [user] = json((await cli('users:create', '--email', 'leaver@example.com', '--password', 'a long password')).stdout);
    const [expiring] = json((await cli('users:token', '--email', 'leaver@example.com', '--name', 'ci', '--expires-in-days', '30')).stdout);
    await cli('users:create', '--email', 'stays@example.com');
    app = await startTestApp({}, database);
    expect([await status(user.api_token as string), await status(expiring.api_token as string)]).toEqual([200, 200]);
    const session = await app.service(SessionsService).start(await app.service(UsersService).find('leaver@example.com'));
    expect(await app.service(SessionsService).userOf(session)).not.toBeNull();

    const disabled = await cli('users:disable', '--email', 'LEAVER@example.com');
    expect([disabled.code, json(disabled.stdout)]).toEqual([0, [{ email: 'leaver@example.com', sessions_ended: 1, tokens_revoked: 2, disabled: true }]]);
    expect([await status(user.api_token as string), await status(expiring.api_token as string)]).toEqual([401, 401]);
    expect(await app.service(SessionsService).userOf(session)).toBeNull();
    const listed = json((await cli('users:list')).stdout);
    expect(listed.map((u) => [u.email, u.sign_in, u.disabled, u.tokens])).toEqual([
      ['leaver@example.com', ['password'], true, 0],
      ['stays@example.com', [], false, 1],
    ]);

    // A token issued after the fact still does not work while the user is disabled.
    const [late] = json((await cli('users:token', '--email', 'leaver@example.com')).stdout);
    expect(await status(late.api_token as string)).toBe(401);
    expect(json((await cli('users:enable', '--email', 'leaver@example.com')).stdout)).toEqual([{ email: 'leaver@example.com', disabled: false }]);
    expect(await status(late.api_token as string)).toBe(200);

    const refused = await cli('users:token', '--email', 'leaver@example.com', '--expires-in-days', '7');
    expect([refused.code, refused.stderr.trim()]).toEqual([2, 'A token expires after 30, 90, 365 days, or never.']);
    const unknown = await cli('users:disable', '--email', 'nobody@example.com');
    expect([unknown.code, unknown.stderr.trim()]).toEqual([2, 'No user with the email nobody@example.com.']);
  });

  it('makes administrators: users:create --admin, users:promote and users:demote, each in the security log', async () => {
    const created = await cli('users:create', '--email', 'Boss@example.com', '--admin');
    expect(created.code).toBe(0);
    await cli('users:create', '--email', 'staff@example.com');
    const promoted = await cli('users:promote', '--email', 'STAFF@example.com');
    expect([promoted.code, json(promoted.stdout)]).toEqual([0, [{ email: 'staff@example.com', admin: true, changed: true }]]);
    expect(json((await cli('users:promote', '--email', 'staff@example.com')).stdout)).toEqual([{ email: 'staff@example.com', admin: true, changed: false }]);
    expect(json((await cli('users:list')).stdout).map((u) => [u.email, u.admin])).toEqual([
      ['boss@example.com', true],
      ['staff@example.com', true],
    ]);
    expect(json((await cli('users:demote', '--email', 'boss@example.com')).stdout)).toEqual([{ email: 'boss@example.com', admin: false, changed: true }]);
    expect(json((await cli('users:list')).stdout).map((u) => [u.email, u.admin])).toEqual([
      ['boss@example.com', false],
      ['staff@example.com', true],
    ]);

    app = await startTestApp({}, database);
    const log = app.service(SecurityLog);
    const [boss, staff] = await Promise.all(['boss@example.com', 'staff@example.com'].map((email) => app!.service(UsersService).find(email)));
    expect((await log.list(boss.id)).events.map((event) => [event.kind, event.detail])).toEqual([
      ['admin_revoked', { by: 'cli' }],
      ['account_created', { by: 'cli', admin: true }],
    ]);
    expect((await log.list(staff.id)).events.map((event) => event.kind)).toEqual(['admin_granted', 'account_created']);
  });

  it('deletes a user: expires their active pushes and removes their tokens', async () => {
    const [user] = json((await cli('users:create', '--email', 'leaver@example.com')).stdout);
    app = await startTestApp({}, database);
    const api = client(app.baseUrl);
    const push = await api.createPush({ payload: 'theirs' }, { authorization: `Bearer ${String(user.api_token)}` });
    await app.close();
    app = undefined;

    const deleted = await cli('users:delete', '--email', 'leaver@example.com');
    expect(deleted.code).toBe(0);
    expect(json(deleted.stdout)).toEqual([{ email: 'leaver@example.com', deleted: true, expired_pushes: 1 }]);

    app = await startTestApp({}, database);
    expect(await status(user.api_token as string)).toBe(401);
    expect((await client(app.baseUrl).get(`/api/v2/pushes/${push.url_token}`)).body).toMatchObject({ expired: true, payload: null });
  });

});

describeCliRefusals('administration CLI, refusing a command', [
  [['users:create', '--email', 'dup@example.com'], 'already exists'],
  [['users:token', '--email', 'nobody@example.com'], 'No user with the email nobody@example.com'],
  [['users:delete', '--email', 'nobody@example.com'], 'No user'],
  [['users:create', '--email', 'not-an-email'], 'not a valid email'],
  [['users:promote', '--email', 'nobody@example.com'], 'No user with the email nobody@example.com'],
  [['users:create', '--email', 'y@example.com', '--password', 'short'], 'at least 10 characters'],
  [['users:create', '--email', 'y@example.com', '--password', 'x'.repeat(129)], 'at most 128 characters'],
]);
