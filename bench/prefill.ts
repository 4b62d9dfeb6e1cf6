import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { createConnection } from 'mysql2/promise';
import { Client } from 'pg';
import { createApiToken } from './files';
import type { Engine } from './options';
import { progress } from './processes';

/**
 * --prefill: a database that has lived, written straight into the service's tables (as its
 * migrations define them) with multi-row INSERTs before the server under test starts.
 *
 * - PUSHES pushes, ids 1..PUSHES in creation order over the last CREATED_OVER_DAYS days, each
 *   with two audit entries (creation, then a view); anonymous ones are 70 % expired (by views:
 *   payload and passphrase hash destroyed) and 30 % active with an encrypted-looking payload;
 * - one user, made with the CLI's users:create so that its API token is real, owning every
 *   OWNER_EVERY-th push (OWNED pushes, all active: page 200 of the active list, the last page
 *   the API serves at 50 a page, is then full);
 * - the user's newest push with AUDIT_LOG_ENTRIES audit entries instead of two (page 40, the
 *   last one at 50 a page, is full).
 *
 * Active pushes are created less than CREATED_OVER_DAYS days ago for 90 days, so neither the
 * expiry sweep nor a list's expiry of elapsed pushes changes anything during a run: the data
 * stays as loaded whatever the scenarios do. Retrieve and preview read pushes the bench creates
 * through the API, never these (their payloads are random bytes no key decrypts).
 */

export const PUSHES = 1_000_000;
export const OWNER_EVERY = 100;
export const OWNED = PUSHES / OWNER_EVERY;
export const AUDIT_LOG_ENTRIES = 2_000;
const CREATED_OVER_DAYS = 30;
const DAY_MS = 86_400_000;
export const OWNER_EMAIL = 'bench-owner@example.com';
/** The API's page size and last page (libs/common/src/paging.ts). */
export const PAGE_SIZE = 50;
/** The owner's active list ends exactly at the API's last page. */
export const LAST_LIST_PAGE = 200;
/** The last page of the long audit log, a full one. */
export const AUDIT_PAGE = 40;
if (OWNED !== LAST_LIST_PAGE * PAGE_SIZE || AUDIT_LOG_ENTRIES !== AUDIT_PAGE * PAGE_SIZE)
  throw new Error("prefill.ts: the owner's pushes and the long log must fill their last pages exactly");

/** What the list and audit scenarios need to find in the prefilled data. */
export interface Fixture {
  /** The owner's API token (Bearer). */
  apiToken: string;
  /** The owner's push with AUDIT_LOG_ENTRIES audit entries. */
  auditPushToken: string;
}

export interface PrefillResult {
  fixture: Fixture;
  seconds: number;
  pushes: number;
  auditEntries: number;
}

interface Table {
  name: 'pushes' | 'audit_entries';
  columns: string[];
  /** PostgreSQL's element type of each column, for the unnest() of its array. */
  pgTypes: string[];
}

/** The columns in the order pushRow and the audit rows give their values, with their PostgreSQL types. */
const table = (name: Table['name'], columns: Record<string, string>): Table => ({
  name,
  columns: Object.keys(columns),
  pgTypes: Object.values(columns),
});

const PUSHES_TABLE = table('pushes', {
  id: 'int',
  url_token: 'varchar',
  kind: 'varchar',
  name: 'varchar',
  payload: 'bytea',
  note: 'bytea',
  passphrase_hash: 'varchar',
  passphrase_protected: 'boolean',
  expire_after_days: 'int',
  expire_after_views: 'int',
  view_count: 'int',
  deletable_by_viewer: 'boolean',
  retrieval_step: 'boolean',
  expired: 'boolean',
  deleted: 'boolean',
  user_id: 'int',
  audit_entry_count: 'int',
  expired_on: 'bigint',
  expires_at: 'bigint',
  created_at: 'bigint',
  updated_at: 'bigint',
});
const AUDIT_TABLE = table('audit_entries', {
  id: 'int',
  push_id: 'int',
  kind: 'varchar',
  ip: 'varchar',
  user_agent: 'varchar',
  referrer: 'varchar',
  created_at: 'bigint',
  updated_at: 'bigint',
});

type Value = string | number | boolean | Buffer | null;
type Row = Value[];
const column = (name: string) => PUSHES_TABLE.columns.indexOf(name);
const [URL_TOKEN, EXPIRED_ON, CREATED_AT] = [column('url_token'), column('expired_on'), column('created_at')];

/** Rows per INSERT statement (and per transaction on MySQL and PostgreSQL). */
const BATCH = 2_000;
const TOKEN_BYTES = 18;
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

/** The writes of one engine: a multi-row INSERT per batch, plus the odd query. */
interface Loader {
  insert(table: Table, rows: Row[]): Promise<void>;
  userId(email: string): Promise<number>;
  /** After the last batch: commit, statistics, sequences. */
  finish(): Promise<void>;
  close(): Promise<void>;
}

function sqliteLoader(path: string): Loader {
  const db = new Database(path);
  // Only this loading connection: a crash mid-load leaves a bench database nobody keeps.
  db.pragma('synchronous = OFF');
  // No journal at all while loading (the WAL would take every page twice); WAL again at the end.
  db.pragma('journal_mode = OFF');
  db.pragma('foreign_keys = OFF');
  // Room for the indexes the random tokens touch all over (the default cache is 2 MB).
  db.pragma('cache_size = -262144');
  const statements = new Map<string, Database.Statement>();
  const statement = (table: Table, rows: number) => {
    const key = `${table.name}:${rows}`;
    let prepared = statements.get(key);
    if (!prepared) {
      const tuple = `(${table.columns.map(() => '?').join(', ')})`;
      prepared = db.prepare(`INSERT INTO ${table.name} (${table.columns.join(', ')}) VALUES ${Array(rows).fill(tuple).join(', ')}`);
      statements.set(key, prepared);
    }
    return prepared;
  };
  // One transaction around the whole load: better-sqlite3 is synchronous, so BEGIN/COMMIT by hand.
  db.exec('BEGIN');
  return {
    insert: async (table, rows) => {
      // Within SQLite's 32,766 parameters a statement.
      const perStatement = Math.floor(32_000 / table.columns.length);
      for (let first = 0; first < rows.length; first += perStatement) {
        const chunk = rows.slice(first, first + perStatement);
        const flat: unknown[] = [];
        // better-sqlite3 binds no booleans.
        for (const row of chunk) for (const value of row) flat.push(typeof value === 'boolean' ? (value ? 1 : 0) : value);
        statement(table, chunk.length).run(flat);
      }
    },
    userId: async (email) => Number((db.prepare('SELECT id FROM users WHERE email = ?').get(email) as { id: number }).id),
    finish: async () => {
      db.exec('COMMIT');
      db.pragma('journal_mode = WAL');
    },
    close: async () => void db.close(),
  };
}

async function mysqlLoader(url: string): Promise<Loader> {
  // Two connections, one a table, so that the server works on both tables' batches at once.
  const connections = await Promise.all([0, 1].map(() => createConnection({ uri: url, supportBigNumbers: true })));
  for (const connection of connections) {
    // The rows are consistent by construction: skip the per-row foreign key and uniqueness look-ups.
    await connection.query('SET foreign_key_checks = 0, unique_checks = 0');
  }
  const [first, second] = connections;
  return {
    insert: async (table, rows) => {
      // mysql2 expands a nested array into (..), (..) lists, Buffers into X'..' literals.
      await (table === PUSHES_TABLE ? first : second).query(`INSERT INTO ${table.name} (${table.columns.join(', ')}) VALUES ?`, [rows]);
    },
    userId: async (email) => {
      const [rows] = await first.query('SELECT id FROM users WHERE email = ?', [email]);
      return Number((rows as { id: number }[])[0].id);
    },
    finish: async () => {
      await first.query('ANALYZE TABLE pushes, audit_entries');
    },
    close: async () => {
      await Promise.all(connections.map((connection) => connection.end()));
    },
  };
}

async function postgresLoader(url: string): Promise<Loader> {
  // Two connections, one a table, so that the server works on both tables' batches at once.
  const clients = [0, 1].map(() => new Client({ connectionString: url }));
  for (const client of clients) {
    await client.connect();
    // Per session: a lost load is simply loaded again.
    await client.query('SET synchronous_commit = off');
  }
  const [first, second] = clients;
  const texts = new Map<string, string>();
  return {
    insert: async (table, rows) => {
      let text = texts.get(table.name);
      if (!text) {
        // One array parameter per column, whatever the number of rows.
        text = `INSERT INTO ${table.name} (${table.columns.join(', ')}) SELECT * FROM unnest(${table.pgTypes.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})`;
        texts.set(table.name, text);
      }
      const columns = table.columns.map((_, c) => rows.map((row) => row[c]));
      await (table === PUSHES_TABLE ? first : second).query(text, columns);
    },
    userId: async (email) => Number((await first.query<{ id: number }>('SELECT id FROM users WHERE email = $1', [email])).rows[0].id),
    finish: async () => {
      // The ids were given explicitly: move the SERIAL sequences past them.
      for (const table of ['pushes', 'audit_entries']) {
        await first.query(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), (SELECT max(id) FROM ${table}))`);
      }
      // What autovacuum would do minutes later, perhaps in the middle of a measurement (or never,
      // where it is off): statistics for the planner, the visibility map for index-only scans.
      await Promise.all([first.query('VACUUM ANALYZE pushes'), second.query('VACUUM ANALYZE audit_entries')]);
      // The load's dirty pages written out now rather than by a checkpoint during the first
      // measurement (which then also writes whole pages to the WAL on their next change).
      try {
        await first.query('CHECKPOINT');
      } catch (error) {
        progress(`  no CHECKPOINT after the load (${error instanceof Error ? error.message : String(error)}): the first measurements may meet one`);
      }
    },
    close: async () => {
      await Promise.all(clients.map((client) => client.end()));
    },
  };
}

async function loaderFor(engine: Engine, databaseUrl: string): Promise<Loader> {
  switch (engine) {
    case 'sqlite':
      return sqliteLoader(databaseUrl.replace(/^sqlite:/, ''));
    case 'mysql':
      return mysqlLoader(databaseUrl);
    case 'postgres':
      return postgresLoader(databaseUrl);
  }
}

/** A push row: id `id` (1-based), owned by `ownerId` every OWNER_EVERY-th push. */
function pushRow(id: number, urlToken: string, ownerId: number, now: number, activePayload: Buffer, auditEntries: number): Row {
  const owned = id % OWNER_EVERY === 0;
  // Deterministic mix: 7 anonymous pushes in 10 have expired.
  const expired = !owned && id % 10 < 7;
  const createdAt = now - CREATED_OVER_DAYS * DAY_MS + Math.floor(((id - 1) * CREATED_OVER_DAYS * DAY_MS) / PUSHES);
  const days = expired ? 7 : 90;
  const views = expired ? 1 : 5;
  const expiredOn = expired ? createdAt + 3_600_000 : null;
  return [
    id,
    urlToken,
    'text',
    owned ? `bench push ${id}` : null,
    expired ? null : activePayload,
    null,
    null,
    false,
    days,
    views,
    expired ? views : 0,
    owned ? true : null,
    id % 2 === 0,
    expired,
    false,
    owned ? ownerId : null,
    auditEntries,
    expiredOn,
    createdAt + days * DAY_MS,
    createdAt,
    expiredOn ?? createdAt,
  ];
}

/**
 * Fills a migrated, empty database (see the top of this file) and returns what the scenarios
 * need. `cliEnv` runs the service's CLI against the same database.
 */
export async function prefill(
  engine: Engine,
  databaseUrl: string,
  label: string,
  cliMain: string,
  cliEnv: NodeJS.ProcessEnv,
): Promise<PrefillResult> {
  const started = process.hrtime.bigint();
  const apiToken = await createApiToken(cliMain, cliEnv, OWNER_EMAIL);
  const loader = await loaderFor(engine, databaseUrl);
  try {
    const ownerId = await loader.userId(OWNER_EMAIL);
    const now = Date.now();
    // Version 1, key id, nonce, tag and a short secret's ciphertext: the size of a real one.
    const activePayload = randomBytes(1 + 4 + 12 + 16 + 28);
    const ip = (id: number) => `203.0.113.${id % 250}`;
    let auditId = 0;
    let auditPushToken = '';
    let auditEntries = 0;
    let lastReport = Date.now();
    let pushesInFlight: Promise<void> = Promise.resolve();
    let auditInFlight: Promise<void> = Promise.resolve();
    for (let first = 1; first <= PUSHES; first += BATCH) {
      const pushes: Row[] = [];
      const audit: Row[] = [];
      // Random, as the service's 18-byte tokens are, so the unique index grows as in production;
      // drawn a batch at a time (a randomBytes call per row costs more than the row's INSERT).
      const random = randomBytes(TOKEN_BYTES * BATCH);
      for (let id = first; id < first + BATCH && id <= PUSHES; id++) {
        // The newest push is the owner's (PUSHES is a multiple of OWNER_EVERY): the long audit log.
        const longLog = id === PUSHES;
        const token = random.toString('base64url', (id - first) * TOKEN_BYTES, (id - first + 1) * TOKEN_BYTES);
        const row = pushRow(id, token, ownerId, now, activePayload, longLog ? AUDIT_LOG_ENTRIES : 2);
        pushes.push(row);
        if (longLog) auditPushToken = row[URL_TOKEN] as string;
        const createdAt = row[CREATED_AT] as number;
        audit.push([++auditId, id, 'creation', ip(id), USER_AGENT, '', createdAt, createdAt]);
        const entries = longLog ? AUDIT_LOG_ENTRIES - 1 : 1;
        for (let e = 0; e < entries; e++) {
          const at = (row[EXPIRED_ON] as number | null) ?? createdAt + 60_000 * (e + 1);
          audit.push([++auditId, id, longLog ? 'owner_view' : 'view', ip(id + e + 1), USER_AGENT, '', at, at]);
        }
      }
      // Pipelined on the loader's two connections: this batch's pushes go in while the previous
      // batch's audit entries do (which follow their pushes: PostgreSQL checks the foreign key).
      await pushesInFlight;
      const pushesDone = loader.insert(PUSHES_TABLE, pushes);
      const auditDone = Promise.all([auditInFlight, pushesDone]).then(async () => {
        for (let a = 0; a < audit.length; a += BATCH) await loader.insert(AUDIT_TABLE, audit.slice(a, a + BATCH));
      });
      // Awaited at the next batch or the end; a failure is reported there, not as unhandled.
      auditDone.catch(() => undefined);
      pushesInFlight = pushesDone;
      // At most one batch of audit entries waits behind the one being written.
      await auditInFlight;
      auditInFlight = auditDone;
      auditEntries += audit.length;
      if (Date.now() - lastReport > 5_000) {
        lastReport = Date.now();
        progress(
          `  ${label}: ${Math.min(first + BATCH - 1, PUSHES).toLocaleString('en-US')} pushes after ${elapsed(started).toFixed(0)} s`,
        );
      }
    }
    await Promise.all([pushesInFlight, auditInFlight]);
    progress(`  ${label}: rows written after ${elapsed(started).toFixed(1)} s; committing and analysing`);
    await loader.finish();
    return { fixture: { apiToken, auditPushToken }, seconds: elapsed(started), pushes: PUSHES, auditEntries };
  } finally {
    await loader.close();
  }
}

const elapsed = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;
