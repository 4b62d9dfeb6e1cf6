import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_MAIN, runNode, type ServerProcess, startServer } from '../support/server-process';
import { TEST_MASTER_KEY } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { totpCode, turnOnTwoFactor } from '../support/two-factor';
import { Visitor } from '../support/visitor';

const REDIS_URL = process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379';
const EMAIL = 'replicas-2fa@example.com';
const PASSWORD = 'a long password';

/**
 * The second step's wrong codes count toward the sign-in limits on every replica: two server
 * processes on one database and one Redis; 10 wrong codes from one address for one account
 * (SIGN_IN_LIMITS.accountFromAddress), split between them, hold back the next try on both,
 * a code for a sign-in already waiting included.
 */
describe('the second step limited across replicas through Redis', () => {
  let database: TestDatabase;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('migrated');
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database.drop();
  });

  it('counts wrong codes on either replica toward one limit', async () => {
    const env = {
      DATABASE_URL: database.url,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'pwpush-2fa-rl-')),
      PWPUSH_MASTER_KEY: TEST_MASTER_KEY,
      REDIS_URL,
      REDIS_KEY_PREFIX: `pwpush-test-${randomBytes(6).toString('hex')}:`,
    };
    expect((await runNode(CLI_MAIN, ['users:create', '--email', EMAIL, '--password', PASSWORD], env)).code).toBe(0);
    // One after the other, so SQLite migrates once.
    for (let i = 0; i < 2; i++) servers.push(await startServer(env));
    const [a, b] = servers;
    const owner = new Visitor(a.url);
    await owner.submit('/users/sign_in', '/users/sign_in', { email: EMAIL, password: PASSWORD });
    const { secret } = await turnOnTwoFactor(owner);

    const passwordStep = async (server: ServerProcess): Promise<Visitor> => {
      const visitor = new Visitor(server.url);
      const step = await visitor.submit('/users/sign_in', '/users/sign_in', { email: EMAIL, password: PASSWORD });
      expect([step.status, step.html]).toEqual([200, expect.stringContaining('name="otp_attempt"')]);
      return visitor;
    };
    const code = (visitor: Visitor, attempt: string) => visitor.submit('/users/sign_in', '/users/sign_in', { otp_attempt: attempt });

    const onA = await passwordStep(a);
    for (let i = 0; i < 5; i++) expect((await code(onA, '000000')).status).toBe(401);
    const onB = await passwordStep(b);
    for (let i = 0; i < 4; i++) expect((await code(onB, '000000')).status).toBe(401);
    const waiting = await passwordStep(a);
    expect((await code(onB, '000000')).status).toBe(401);

    const held = await code(waiting, totpCode(secret));
    expect([held.status, held.html]).toEqual([429, expect.stringMatching(/Too many failed sign-in attempts\. Try again in \d+ seconds\./)]);
    for (const server of [a, b]) {
      const again = await new Visitor(server.url).submit('/users/sign_in', '/users/sign_in', { email: EMAIL, password: PASSWORD });
      expect(again.status).toBe(429);
    }
  });
});
