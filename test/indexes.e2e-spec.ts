import { forPostgres } from '@app/database';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Every lookup the API does is served by an index, not a table scan: checked with the engine's
 * own query plan (EXPLAIN on MySQL and PostgreSQL, EXPLAIN QUERY PLAN on SQLite) for the queries
 * the code runs.
 */
describe('query plans', () => {
  let app: TestApp;
  let tokenHash: string;

  beforeAll(async () => {
    app = await startTestApp();
    // A few rows, so that MySQL's optimiser has something to choose between (it short-cuts empty tables).
    await app.createUser('first@example.com');
    await app.createUser('second@example.com');
    [{ token_hash: tokenHash }] = await app.query('SELECT token_hash FROM api_tokens');
    for (const hash of ['session-a', 'session-b']) {
      await app.query('INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?, 1, ?, ?)', [hash, Date.now(), Date.now() + 1e6]);
    }
    for (let i = 0; i < 20; i++) {
      await app.query(
        `INSERT INTO pushes (url_token, kind, expire_after_days, expire_after_views, retrieval_step, expires_at, created_at, updated_at, user_id)
         VALUES (?, 'text', 7, 5, TRUE, ?, ?, ?, NULL)`,
        [`plan${i}`, Date.now() + 1e6, Date.now(), Date.now()],
      );
      await app.query(
        'INSERT INTO file_attachments (push_id, blob_key, meta, stream_key, size, created_at, destroy_at) VALUES (?, ?, ?, ?, 0, ?, ?)',
        [i < 10 ? i + 1 : null, `planblob${i}`, Buffer.from('m'), Buffer.from('k'), Date.now(), Date.now() + i * 1e6],
      );
    }
  });
  afterAll(() => app.close({ drop: true }));

  /** The index the engine uses for `sql`, or null for a full scan. */
  async function indexUsed(sql: string, params: unknown[]): Promise<string | null> {
    switch (app.database.engine) {
      case 'mysql': {
        const [plan] = await app.query(`EXPLAIN ${sql}`, params);
        return plan.type === 'ALL' ? null : (plan.key as string | null);
      }
      case 'postgres': {
        // On a few rows a sequential scan is the cheapest plan whatever the indexes; ruled out
        // (made very expensive) on this connection, the plan shows the index that can serve it.
        const runner = app.dataSource.createQueryRunner();
        try {
          await runner.query('SET enable_seqscan = off');
          const plan: { 'QUERY PLAN': string }[] = await runner.query(`EXPLAIN ${forPostgres(sql)}`, params);
          const match = /Index (?:Only )?Scan (?:Backward )?using (\w+)|Bitmap Index Scan on (\w+)/.exec(plan.map((step) => step['QUERY PLAN']).join('\n'));
          return match ? (match[1] ?? match[2]) : null;
        } finally {
          await runner.query('RESET enable_seqscan');
          await runner.release();
        }
      }
      case 'sqlite': {
        const plan: { detail: string }[] = await app.query(`EXPLAIN QUERY PLAN ${sql}`, params);
        const match = /USING (?:COVERING )?INDEX (\w+)|USING INTEGER PRIMARY KEY/.exec(plan.map((step) => step.detail).join('\n'));
        return match ? (match[1] ?? 'PRIMARY') : null;
      }
    }
  }

  it.each([
    ['a push by token', 'SELECT * FROM pushes WHERE url_token = ?', ['plan1'], 'ux_pushes_url_token'],
    ['an owner\'s list page', 'SELECT * FROM pushes WHERE user_id = ? AND expired = ? ORDER BY id DESC LIMIT 51', [1, 0], 'ix_pushes_user_id_expired_id'],
    ['the sweep\'s elapsed pushes', 'SELECT id FROM pushes WHERE expired = FALSE AND expires_at <= ? ORDER BY expires_at LIMIT 2000', [Date.now()], 'ix_pushes_expired_expires_at'],
    ['the purge\'s old expired pushes', 'SELECT id FROM pushes WHERE expired = TRUE AND expired_on < ? ORDER BY expired_on LIMIT 2000', [Date.now()], 'ix_pushes_expired_expired_on'],
    ['an owner\'s file pushes', "SELECT id FROM pushes WHERE user_id = ? AND kind = 'file'", [1], 'ix_pushes_user_id_expired_id'],
    ['a push\'s files', 'SELECT * FROM file_attachments WHERE push_id = ? ORDER BY id ASC', [3], 'ix_file_attachments_push_id'],
    ['the file blobs due for destruction', 'SELECT id, blob_key FROM file_attachments WHERE destroy_at <= ? ORDER BY destroy_at ASC LIMIT 2000', [Date.now()], 'ix_file_attachments_destroy_at'],
    ['a push\'s audit page', 'SELECT * FROM audit_entries WHERE push_id = ? ORDER BY id ASC LIMIT 50', [1], 'ix_audit_entries_push_id_id'],
    // MySQL plans a unique-key miss as "no matching row", so these look up rows that exist.
    ['a user by email', 'SELECT * FROM users WHERE email = ?', () => ['first@example.com'], 'ux_users_email'],
    ['an API token by hash', 'SELECT * FROM api_tokens WHERE token_hash = ?', () => [tokenHash], 'ux_api_tokens_token_hash'],
    ['a session by hash', 'SELECT * FROM sessions WHERE token_hash = ? AND expires_at > ?', () => ['session-a', Date.now()], 'ux_sessions_token_hash'],
    ['a user\'s lapsed sessions', 'SELECT id FROM sessions WHERE user_id = ? AND expires_at <= ?', () => [1, Date.now() + 2e6], 'ix_sessions_user_id_expires_at'],
  ])('uses an index for %s', async (_what, sql, params, index) => {
    expect(await indexUsed(sql, typeof params === 'function' ? params() : params)).toBe(index);
  });
});
