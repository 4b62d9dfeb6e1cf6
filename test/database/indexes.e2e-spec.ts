import { MAX_PAGE, PAGE_SIZE } from '@app/common';
import { forPostgres } from '@app/database';
import { client } from '../support/http';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Every lookup the API does is served by an index, not a table scan: checked with the engine's
 * own query plan (EXPLAIN on MySQL and PostgreSQL, EXPLAIN QUERY PLAN on SQLite) for the queries
 * the code runs.
 */
/** The owner's pushes in the plans' data: a tenth of all pushes. */
const OWNED = 1500;

describe('query plans', () => {
  let app: TestApp;
  let tokenHash: string;
  let ownerToken: string;

  beforeAll(async () => {
    app = await startTestApp();
    // A few rows, so that MySQL's optimiser has something to choose between (it short-cuts empty tables).
    ownerToken = await app.createUser('first@example.com');
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
    // Secret requests: a few of each state, none due, so that each lookup has rows to choose between.
    for (let i = 0; i < 30; i++) {
      const state = ['open', 'ready', 'closed'][i % 3];
      await app.query(
        `INSERT INTO requests (url_token, user_id, message, state, close_after_duration, close_after_at, closed_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, 8, ?, ?, ?, ?)`,
        [`req${i}`, (i % 2) + 1, Buffer.from('m'), state, Date.now() + 1e9, state === 'closed' ? Date.now() - i : null, Date.now(), Date.now()],
      );
      await app.query("INSERT INTO request_audit_entries (request_id, kind, ip, user_agent, referrer, created_at, updated_at) VALUES (?, 'creation', '127.0.0.1', '', '', ?, ?)", [
        i + 1,
        Date.now(),
        Date.now(),
      ]);
      await app.query('INSERT INTO file_attachments (request_id, from_responder, blob_key, meta, stream_key, size, created_at, destroy_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)', [
        i + 1,
        i % 2,
        `reqblob${i}`,
        Buffer.from('m'),
        Buffer.from('k'),
        Date.now(),
        Date.now() + 1e9,
      ]);
    }
    // The owner's lists and an audit log, among anonymous pushes as in a real database: most of
    // them expired, and some active ones whose day window has elapsed but that the sweep has not
    // reached yet (what a list expires first, had the owner any). The owner has enough pushes for
    // the engines to plan as for a heavy user (on a handful, sorting them is as good as any plan).
    const now = Date.now();
    const pushes: string[] = [];
    for (let i = 0; i < 9 * OWNED; i++) {
      const [expired, expiresAt] = i % 10 < 7 ? ['TRUE', now - 1e6] : i % 10 === 7 ? ['FALSE', now - 1e6] : ['FALSE', now + 1e9];
      pushes.push(`('anon${i}', 'text', 7, 5, TRUE, ${expired}, ${expiresAt}, ${now}, ${now}, NULL)`);
    }
    for (let i = 0; i < OWNED; i++) pushes.push(`('owned${i}', 'text', 7, 5, TRUE, ${i < 50 ? 'TRUE' : 'FALSE'}, ${now + 1e9}, ${now}, ${now}, 1)`);
    for (let i = 0; i < pushes.length; i += 1000) {
      const values = pushes.slice(i, i + 1000).join(', ');
      await app.query(`INSERT INTO pushes (url_token, kind, expire_after_days, expire_after_views, retrieval_step, expired, expires_at, created_at, updated_at, user_id) VALUES ${values}`);
    }
    // Every push's creation, and one push's longer log.
    const ids: { id: number }[] = await app.query('SELECT id FROM pushes');
    const [{ id: logged }] = await app.query(`SELECT id FROM pushes WHERE url_token = 'owned${OWNED - 1}'`);
    const entries = ids.map(({ id }) => `(${id}, 'creation', '127.0.0.1', '', '', ${now}, ${now})`);
    for (let i = 0; i < 119; i++) entries.push(`(${logged}, 'owner_view', '127.0.0.1', '', '', ${now}, ${now})`);
    for (let i = 0; i < entries.length; i += 1000) {
      const values = entries.slice(i, i + 1000).join(', ');
      await app.query(`INSERT INTO audit_entries (push_id, kind, ip, user_agent, referrer, created_at, updated_at) VALUES ${values}`);
    }
    // What autovacuum keeps up on a live PostgreSQL database: statistics (without them the planner
    // guesses) and the visibility map (which lets an index-only scan skip the table).
    if (app.database.engine === 'postgres') await app.query('VACUUM ANALYZE');
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

  /** What the engine's plan for `sql` does: the indexes it reads, the tables it scans whole, whether it sorts. */
  async function planOf(sql: string, params: unknown[]): Promise<{ indexes: string[]; fullScans: string[]; sorts: boolean }> {
    switch (app.database.engine) {
      case 'mysql': {
        const plan: { table: string; type: string; key: string | null; Extra: string | null }[] = await app.query(`EXPLAIN ${sql}`, params);
        return {
          indexes: plan.flatMap((step) => (step.key ? [step.key] : [])),
          // A derived table is the handful of rows its subquery produced, read back in full by design.
          fullScans: plan.filter((step) => step.type === 'ALL' && !step.table.startsWith('<derived')).map((step) => step.table),
          sorts: plan.some((step) => /filesort|temporary/i.test(step.Extra ?? '')),
        };
      }
      case 'postgres': {
        // On a few rows, reading a whole table (a sequential scan, or an index scan without a
        // condition under a hash or merge join) or sorting a few rows is the cheapest plan
        // whatever the indexes. Ruled out (made very expensive) on this connection, the plan shows
        // whether indexes serve the statement: the plan the planner picks by itself at scale (as
        // on the bench's prefilled database, npm run bench -- --prefill).
        const settings = ['enable_seqscan', 'enable_sort', 'enable_hashjoin', 'enable_mergejoin'];
        const runner = app.dataSource.createQueryRunner();
        try {
          for (const setting of settings) await runner.query(`SET ${setting} = off`);
          const plan: { 'QUERY PLAN': string }[] = await runner.query(`EXPLAIN ${forPostgres(sql)}`, params);
          // One entry a plan node, with its detail lines (Index Cond, Filter, ...).
          const nodes = plan.map((step) => step['QUERY PLAN']).join('\n').split(/\n(?=\s*->)/);
          return {
            indexes: nodes.flatMap((node) => /Index (?:Only )?Scan (?:Backward )?using (\w+)|Bitmap Index Scan on (\w+)/.exec(node)?.slice(1).filter(Boolean) ?? []),
            fullScans: nodes.flatMap((node) => {
              const scan = /Seq Scan on (\w+)|Index (?:Only )?Scan (?:Backward )?using \S+ on (\w+)/.exec(node);
              return scan && (scan[1] || !node.includes('Index Cond:')) ? [scan[1] ?? scan[2]] : [];
            }),
            sorts: nodes.some((node) => /^\s*(?:->\s*)?(?:Incremental )?Sort\b/.test(node)),
          };
        } finally {
          for (const setting of settings) await runner.query(`RESET ${setting}`);
          await runner.release();
        }
      }
      case 'sqlite': {
        const plan: { detail: string }[] = await app.query(`EXPLAIN QUERY PLAN ${sql}`, params);
        const details = plan.map((step) => step.detail);
        // A subquery's rows (a co-routine or a materialised view) are read back in full by design.
        const subqueries = details.flatMap((detail) => /^(?:CO-ROUTINE|MATERIALIZE) (\S+)/.exec(detail)?.[1] ?? []);
        return {
          indexes: details.flatMap((detail) => {
            const match = /USING (?:COVERING )?INDEX (\w+)|USING INTEGER PRIMARY KEY/.exec(detail);
            return match ? [match[1] ?? 'PRIMARY'] : [];
          }),
          fullScans: details.flatMap((detail) => {
            const match = /^SCAN (\S+)(?! USING)/.exec(detail);
            return match && !subqueries.includes(match[1]) ? [match[1]] : [];
          }),
          sorts: details.some((detail) => detail.includes('USE TEMP B-TREE')),
        };
      }
    }
  }

  /** The statements the app sent to the database while `work` ran, as sent (SQL and parameters). */
  async function statementsDuring(work: () => Promise<unknown>): Promise<{ sql: string; params: unknown[] }[]> {
    const spy = jest.spyOn(app.dataSource.logger, 'logQuery');
    try {
      await work();
      return spy.mock.calls.map(([sql, params]) => ({ sql, params: params ?? [] }));
    } finally {
      spy.mockRestore();
    }
  }

  describe('of the statements the API runs', () => {
    const owner = () => ({ authorization: `Bearer ${ownerToken}` });

    it.each([1, 2, MAX_PAGE])("reads page %i of the owner's active pushes from the (user_id, expired, id) index, unsorted", async (page) => {
      const statements = await statementsDuring(async () => {
        const response = await client(app.baseUrl).get(`/api/v2/pushes/active?page=${page}`, owner());
        expect(response.status).toBe(200);
        expect(response.body).toHaveLength(page < MAX_PAGE ? PAGE_SIZE : 0);
      });
      const list = statements.filter((s) => /^\s*SELECT\b/i.test(s.sql) && /\bpushes\b/.test(s.sql) && /\buser_id\b/.test(s.sql));
      expect(list).toHaveLength(1);
      const plan = await planOf(list[0].sql, list[0].params);
      expect(plan).toEqual({ indexes: expect.arrayContaining(['ix_pushes_user_id_expired_id']), fullScans: [], sorts: false });
    });

    it("expires the owner's elapsed pushes before a list through the (user_id, expired, expires_at) index", async () => {
      const statements = await statementsDuring(() => client(app.baseUrl).get('/api/v2/pushes/active', owner()));
      const expire = statements.filter((s) => /^\s*UPDATE\b/i.test(s.sql) && /\buser_id\b/.test(s.sql));
      expect(expire).toHaveLength(1);
      expect(await planOf(expire[0].sql, expire[0].params)).toEqual({ indexes: ['ix_pushes_user_id_expired_expires_at'], fullScans: [], sorts: false });
    });

    it('reads the last page of an audit log from the (push_id, id) index, unsorted', async () => {
      const statements = await statementsDuring(async () => {
        const response = await client(app.baseUrl).get(`/api/v2/pushes/owned${OWNED - 1}/audit?page=3`, owner());
        expect(response.status).toBe(200);
        expect(response.body.logs).toHaveLength(120 - 2 * PAGE_SIZE);
      });
      const page = statements.filter((s) => /\baudit_entries\b/.test(s.sql) && /^\s*SELECT\b/i.test(s.sql));
      expect(page).toHaveLength(1);
      expect(await planOf(page[0].sql, page[0].params)).toEqual({ indexes: ['ix_audit_entries_push_id_id'], fullScans: [], sorts: false });
    });
  });

  it.each([
    ['a push by token', 'SELECT * FROM pushes WHERE url_token = ?', ['plan1'], 'ux_pushes_url_token'],
    ['an owner\'s list page', 'SELECT * FROM pushes WHERE user_id = ? AND expired = ? ORDER BY id DESC LIMIT 51', [1, 0], 'ix_pushes_user_id_expired_id'],
    ['the sweep\'s elapsed pushes', 'SELECT id FROM pushes WHERE expired = FALSE AND expires_at <= ? ORDER BY expires_at LIMIT 2000', [Date.now()], 'ix_pushes_expired_expires_at'],
    ['the purge\'s old expired pushes', 'SELECT id FROM pushes WHERE expired = TRUE AND expired_on < ? ORDER BY expired_on LIMIT 2000', [Date.now()], 'ix_pushes_expired_expired_on'],
    // Either index led by user_id serves it.
    ['an owner\'s file pushes', "SELECT id FROM pushes WHERE user_id = ? AND kind = 'file'", [1], ['ix_pushes_user_id_expired_id', 'ix_pushes_user_id_expired_expires_at']],
    ['a push\'s files', 'SELECT * FROM file_attachments WHERE push_id = ? ORDER BY id ASC', [3], 'ix_file_attachments_push_id'],
    ['the file blobs due for destruction', 'SELECT id, blob_key FROM file_attachments WHERE destroy_at <= ? ORDER BY destroy_at ASC LIMIT 2000', [Date.now()], 'ix_file_attachments_destroy_at'],
    ['a push\'s audit page', 'SELECT * FROM audit_entries WHERE push_id = ? ORDER BY id ASC LIMIT 50', [1], 'ix_audit_entries_push_id_id'],
    ['a request by token', 'SELECT * FROM requests WHERE url_token = ?', ['req1'], 'ux_requests_url_token'],
    ['an owner\'s requests in a state', 'SELECT id FROM requests WHERE user_id = ? AND state IN (?, ?) ORDER BY id DESC LIMIT 51', [1, 'open', 'open'], 'ix_requests_user_id_state_id'],
    ['the sweep\'s requests whose time has come', "SELECT id FROM requests WHERE state IN ('open', 'ready') AND close_after_at <= ? ORDER BY close_after_at LIMIT 2000", [Date.now()], 'ix_requests_state_close_after_at'],
    ['the purge\'s old closed requests', "SELECT id FROM requests WHERE state = 'closed' AND closed_at < ? ORDER BY closed_at LIMIT 2000", [Date.now() - 10], 'ix_requests_state_closed_at'],
    ['a request\'s files', 'SELECT * FROM file_attachments WHERE request_id = ? AND from_responder = ? ORDER BY id ASC', [2, 1], 'ix_file_attachments_request_id'],
    ['a request\'s audit page', 'SELECT * FROM request_audit_entries WHERE request_id = ? ORDER BY id ASC LIMIT 50', [1], 'ix_request_audit_entries_request_id_id'],
    // MySQL plans a unique-key miss as "no matching row", so these look up rows that exist.
    ['a user by email', 'SELECT * FROM users WHERE email = ?', () => ['first@example.com'], 'ux_users_email'],
    ['an API token by hash', 'SELECT * FROM api_tokens WHERE token_hash = ?', () => [tokenHash], 'ux_api_tokens_token_hash'],
    ['a session by hash', 'SELECT * FROM sessions WHERE token_hash = ? AND expires_at > ?', () => ['session-a', Date.now()], 'ux_sessions_token_hash'],
    ['a user\'s lapsed sessions', 'SELECT id FROM sessions WHERE user_id = ? AND expires_at <= ?', () => [1, Date.now() + 2e6], 'ix_sessions_user_id_expires_at'],
  ])('uses an index for %s', async (_what, sql, params, index) => {
    const used = await indexUsed(sql, typeof params === 'function' ? params() : params);
    if (Array.isArray(index)) expect(index).toContain(used);
    else expect(used).toBe(index);
  });
});
