import { instanceLogStatement } from '@app/audit';
import { securityLogStatement } from '@app/auth';
import { forPostgres } from '@app/database';
import { startTestApp, type TestApp } from '../support/test-app';

const PUSHES = 2000;
const ENTRIES_PER_PUSH = 10;
const EVENTS = 20_000;
const REQUESTS = 1000;
const ENTRIES_PER_REQUEST = 10;

/**
 * The administration's audit log costs the same on page 1,000 as on page 1: each of its three
 * statements (pushes', secret requests', accounts') reads its table backwards along the primary key from where the previous page stopped
 * (keyset), with no sort, on every engine, by the engine's own plan.
 */
describe('administration: the audit log by keyset', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
    const now = Date.now();
    await app.createUser('plans@example.com');
    const pushes: string[] = [];
    for (let i = 0; i < PUSHES; i++) pushes.push(`('plan${i}', 'text', 7, 5, TRUE, FALSE, ${now + 1e9}, ${now}, ${now}, ${i % 2 === 0 ? 1 : 'NULL'})`);
    for (let i = 0; i < pushes.length; i += 1000) {
      await app.query(`INSERT INTO pushes (url_token, kind, expire_after_days, expire_after_views, retrieval_step, expired, expires_at, created_at, updated_at, user_id) VALUES ${pushes.slice(i, i + 1000).join(', ')}`);
    }
    const ids = (await app.query<{ id: number }>('SELECT id FROM pushes')).map((row) => Number(row.id));
    const entries: string[] = [];
    for (let n = 0; n < ENTRIES_PER_PUSH; n++) for (const id of ids) entries.push(`(${id}, 'view', '127.0.0.1', '', '', ${now + entries.length}, ${now})`);
    for (let i = 0; i < entries.length; i += 1000) {
      await app.query(`INSERT INTO audit_entries (push_id, kind, ip, user_agent, referrer, created_at, updated_at) VALUES ${entries.slice(i, i + 1000).join(', ')}`);
    }
    const events: string[] = [];
    for (let i = 0; i < EVENTS; i++) events.push(`(${i % 3 === 0 ? 1 : 'NULL'}, 'someone@example.com', 'sign_in', ${now + i})`);
    for (let i = 0; i < events.length; i += 1000) {
      await app.query(`INSERT INTO security_events (user_id, email, kind, created_at) VALUES ${events.slice(i, i + 1000).join(', ')}`);
    }
    const [{ id: userId }] = await app.query<{ id: number }>("SELECT id FROM users WHERE email = 'plans@example.com'");
    const requests: string[] = [];
    for (let i = 0; i < REQUESTS; i++) requests.push(`('plan${i}', ${userId}, 'x', 'open', 8, ${now + 1e9}, ${now}, ${now})`);
    for (let i = 0; i < requests.length; i += 1000) {
      await app.query(`INSERT INTO requests (url_token, user_id, message, state, close_after_duration, close_after_at, created_at, updated_at) VALUES ${requests.slice(i, i + 1000).join(', ')}`);
    }
    const requestIds = (await app.query<{ id: number }>('SELECT id FROM requests')).map((row) => Number(row.id));
    const requestEntries: string[] = [];
    for (let n = 0; n < ENTRIES_PER_REQUEST; n++) for (const id of requestIds) requestEntries.push(`(${id}, 'response_view', '127.0.0.1', '', '', ${now + requestEntries.length}, ${now})`);
    for (let i = 0; i < requestEntries.length; i += 1000) {
      await app.query(`INSERT INTO request_audit_entries (request_id, kind, ip, user_agent, referrer, created_at, updated_at) VALUES ${requestEntries.slice(i, i + 1000).join(', ')}`);
    }
    if (app.database.engine === 'postgres') await app.query('VACUUM ANALYZE');
    if (app.database.engine === 'mysql') await app.query('ANALYZE TABLE audit_entries, pushes, security_events, requests, request_audit_entries');
  }, 300_000);
  afterAll(() => app.close({ drop: true }));

  /** How the engine reads `table` (aliased `alias`) for the statement: its index, whether it starts from a bound, and whether anything is sorted. */
  async function access(statement: { sql: string; parameters: unknown[] }, table: string, alias: string): Promise<{ index: string | null; bounded: boolean; sorts: boolean }> {
    switch (app.database.engine) {
      case 'sqlite': {
        const plan = (await app.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${statement.sql}`, statement.parameters)).map((step) => step.detail);
        const step = plan.find((detail) => new RegExp(`^(SCAN|SEARCH) ${alias}\\b`).test(detail)) ?? '';
        return { index: /USING INTEGER PRIMARY KEY/.test(step) || /^SCAN/.test(step) ? 'PRIMARY' : (/USING (?:COVERING )?INDEX (\w+)/.exec(step)?.[1] ?? null), bounded: /rowid</.test(step), sorts: plan.some((detail) => /TEMP B-TREE/.test(detail)) };
      }
      case 'mysql': {
        const plan = await app.query<{ table: string; type: string; key: string | null; Extra: string | null }>(`EXPLAIN ${statement.sql}`, statement.parameters);
        const step = plan.find((row) => row.table === alias)!;
        // The statement's first table drives it: the order comes from it, so no sort.
        expect(plan[0].table).toBe(alias);
        return { index: step.key, bounded: step.type === 'range', sorts: plan.some((row) => /filesort|temporary/i.test(row.Extra ?? '')) };
      }
      case 'postgres': {
        const runner = app.dataSource.createQueryRunner();
        try {
          await runner.query('SET enable_seqscan = off');
          const plan = ((await runner.query(`EXPLAIN ${forPostgres(statement.sql)}`, statement.parameters)) as { 'QUERY PLAN': string }[]).map((row) => row['QUERY PLAN']).join('\n');
          const scan = new RegExp(`Index (?:Only )?Scan Backward using "?(\\w+)"? on ${table}(?: ${alias})?  .*(?:\\n\\s+Index Cond: \\((\\w+) < )?`).exec(plan);
          return { index: scan && /pkey|^PK_/i.test(scan[1]) ? 'PRIMARY' : (scan?.[1] ?? null), bounded: scan?.[2] === 'id', sorts: /\bSort\b/.test(plan) };
        } finally {
          await runner.query('RESET enable_seqscan');
          await runner.release();
        }
      }
    }
  }

  it('reads the pushes\' entries backwards along the primary key, from the previous page\'s last id, on page 1 and deep in the log alike', async () => {
    const [{ id: middle }] = await app.query<{ id: number }>('SELECT MAX(id) - 10000 AS id FROM audit_entries');
    const first = await access(instanceLogStatement({ limit: 51 }), 'audit_entries', 'a');
    const deep = await access(instanceLogStatement({ limit: 51, before: Number(middle) }), 'audit_entries', 'a');
    expect(first).toEqual({ index: 'PRIMARY', bounded: false, sorts: false });
    expect(deep).toEqual({ index: 'PRIMARY', bounded: true, sorts: false });
  });

  it("reads the secret requests' entries the same way", async () => {
    const [{ id: middle }] = await app.query<{ id: number }>('SELECT MAX(id) - 5000 AS id FROM request_audit_entries');
    const statement = (before?: number) => instanceLogStatement({ limit: 51, before }, 'request');
    expect(await access(statement(), 'request_audit_entries', 'a')).toEqual({ index: 'PRIMARY', bounded: false, sorts: false });
    expect(await access(statement(Number(middle)), 'request_audit_entries', 'a')).toEqual({ index: 'PRIMARY', bounded: true, sorts: false });
  });

  it("reads everyone's security log the same way", async () => {
    const [{ id: middle }] = await app.query<{ id: number }>('SELECT MAX(id) - 10000 AS id FROM security_events');
    const statement = (before?: number) => securityLogStatement({ limit: 51, before });
    expect(await access(statement(), 'security_events', 'security_events')).toEqual({ index: 'PRIMARY', bounded: false, sorts: false });
    expect(await access(statement(Number(middle)), 'security_events', 'security_events')).toEqual({ index: 'PRIMARY', bounded: true, sorts: false });
  });
});
