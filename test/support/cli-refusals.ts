import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsersService } from '@app/auth';
import { CLI_MAIN, runNode } from './server-process';
import { startTestApp, TEST_MASTER_KEY, type TestApp } from './test-app';
import { createTestDatabase } from './test-database';

/**
 * Command lines the administration CLI must refuse: each exits 2 with `message` on stderr (no
 * stack trace) and nothing on stdout, and leaves the database as it was, its one user
 * (dup@example.com, with one token) and nothing else. One database for every case, checked in
 * process after each, so that a case costs one CLI process.
 */
export function describeCliRefusals(title: string, cases: [args: string[], message: string][]): void {
  describe(title, () => {
    let standing: TestApp;
    let env: Record<string, string>;

    beforeAll(async () => {
      const database = await createTestDatabase('migrated');
      env = { DATABASE_URL: database.url, DATA_DIR: mkdtempSync(join(tmpdir(), 'pwpush-cli-')), PWPUSH_MASTER_KEY: TEST_MASTER_KEY };
      standing = await startTestApp({}, database);
      await standing.service(UsersService).create('dup@example.com');
    });
    afterAll(() => standing.close({ drop: true }));

    it.each(cases)('fails clearly for %j', async (args, message) => {
      const result = await runNode(CLI_MAIN, args, env);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect((await standing.service(UsersService).list()).map((user) => [user.email, user.tokens])).toEqual([['dup@example.com', 1]]);
    });
  });
}
