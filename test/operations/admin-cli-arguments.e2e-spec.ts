import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsersService } from '@app/auth';
import { freePort } from '../support/helpers';
import { describeCliRefusals } from '../support/cli-refusals';
import { CLI_MAIN, runNode } from '../support/server-process';
import { startTestApp, TEST_MASTER_KEY, TestApp } from '../support/test-app';
import { createTestDatabase, TestDatabase } from '../support/test-database';

/**
 * The administration CLI's command line: the arguments it refuses before doing anything,
 * --flag=value, help, its .env, and the line it prints when the database is unreachable.
 * @one-engine The command line and the settings are read before any SQL, alike on every engine;
 * what the commands do to each engine's database is admin-cli.e2e-spec.ts.
 */
describe('administration CLI', () => {
  let database: TestDatabase;
  let app: TestApp | undefined;
  let env: Record<string, string>;

  const cli = (...args: string[]) => runNode(CLI_MAIN, args, env);
  const json = (stdout: string) => stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

  beforeEach(async () => {
    database = await createTestDatabase();
    env = { DATABASE_URL: database.url, DATA_DIR: mkdtempSync(join(tmpdir(), 'pwpush-cli-')), PWPUSH_MASTER_KEY: TEST_MASTER_KEY };
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await database.drop();
  });

  it('takes --flag=value as well as --flag value', async () => {
    const created = await cli('users:create', '--email=eq@example.com', '--password=with=signs in it');
    expect(created.code).toBe(0);
    expect(json(created.stdout)[0].email).toBe('eq@example.com');
    app = await startTestApp({}, database);
    expect(await app.service(UsersService).checkPassword('eq@example.com', 'with=signs in it')).toMatchObject({ email: 'eq@example.com' });
  });

  it('prints help on stdout with exit code 0: the commands, and each command\'s options', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const overview = await cli(...args);
      expect([overview.code, overview.stderr]).toEqual([0, '']);
      expect(overview.stdout).toMatch(/^Usage: cli <command> \[options\]\n/);
      for (const command of ['migrations:run', 'expiry:sweep', 'users:create', 'users:promote', 'users:demote', 'users:password', 'users:reset-password', 'users:token', 'users:revoke-tokens', 'users:disable', 'users:enable', 'users:list', 'users:delete']) {
        expect(overview.stdout).toMatch(new RegExp(`^  ${command} +\\S`, 'm'));
      }
    }
    const create = await cli('users:create', '--help');
    expect([create.code, create.stderr]).toEqual([0, '']);
    expect(create.stdout).toMatch(/^Usage: cli users:create --email <email> \[--password <password>\] \[--admin\]\n/);
    expect(create.stdout).toMatch(/^ {2}--admin +make the user an administrator$/m);
    expect(create.stdout).toMatch(/^ {2}--email <email> +the user's email address \(required\)$/m);
    expect(create.stdout).toMatch(/^ {2}-h, --help +show this help$/m);
    // Help comes first: neither the missing --email nor the database is looked at.
    const token = await runNode(CLI_MAIN, ['users:token', '-h'], { DATABASE_URL: 'mysql://root@127.0.0.1:1/none' });
    expect([token.code, token.stdout]).toEqual([0, expect.stringMatching(/^Usage: cli users:token --email <email> \[--name <name>\] \[--expires-in-days <days>\]\n/)]);
  });

  it('reads a .env in its working directory, the environment winning over it', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'pwpush-cli-cwd-'));
    writeFileSync(join(cwd, '.env'), `DATABASE_URL=${database.url}\nPWPUSH_MASTER_KEY=${TEST_MASTER_KEY}\nDATA_DIR=${env.DATA_DIR}\n`);
    const created = await runNode(CLI_MAIN, ['users:create', '--email', 'dotenv@example.com'], {}, { cwd });
    expect(created.code).toBe(0);
    expect(json((await cli('users:list')).stdout).map((u) => u.email)).toEqual(['dotenv@example.com']);
    const overridden = await runNode(CLI_MAIN, ['users:list'], { DATABASE_URL: `mysql://root@127.0.0.1:${await freePort()}/elsewhere` }, { cwd });
    expect(overridden.code).toBe(1);
  });

  it('says in one line why it cannot reach the database, with exit code 1', async () => {
    const port = await freePort();
    const result = await runNode(CLI_MAIN, ['users:list'], { ...env, DATABASE_URL: `mysql://root:Hunter2-Secret@127.0.0.1:${port}/pwpush` });
    expect([result.code, result.stdout]).toEqual([1, '']);
    expect(result.stderr).toBe(`Cannot connect to the MySQL database at 127.0.0.1:${port} (ECONNREFUSED): nothing accepts connections on that host and port. Check DATABASE_URL.\n`);
  });
});

describeCliRefusals('administration CLI, refusing an argument', [
  [['users:create'], 'needs --email'],
  [['users:create', '--email'], 'users:create: --email needs a value'],
  [['users:create', '--email', '--password', 'long enough'], 'users:create: --email needs a value'],
  [['users:create', '--email', 'x@example.com', '--owner', 'yes'], 'users:create does not take --owner'],
  [['users:create', '--email', 'x@example.com', '--admin=yes'], 'users:create: --admin takes no value'],
  [['users:create', '--email', 'x@example.com', '--admin', 'yes'], 'unexpected argument "yes"'],
  [['users:create', '--email', 'x@example.com', 'stray'], 'unexpected argument "stray"'],
  [['users:create', '--email=x@example.com', '--email', 'y@example.com'], 'users:create: --email is given more than once'],
  [['users:token', '--email', 'dup@example.com', '--name', 'a', '--name=b'], 'users:token: --name is given more than once'],
  [['users:list', '--help=yes'], 'users:list: --help takes no value'],
  [['users:frobnicate'], 'Unknown command "users:frobnicate".\nUsage'],
  [[], 'No command given.\nUsage'],
]);
