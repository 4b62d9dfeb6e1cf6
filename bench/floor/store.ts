import Database from 'better-sqlite3';
import { createPool, type Pool, type ResultSetHeader, type RowDataPacket } from 'mysql2/promise';
import { Pool as PgPool } from 'pg';

/** A row of the service's `pushes` table as the SQLite and MySQL drivers return it (booleans as 0/1, epoch ms as numbers). */
export interface PushRow {
  id: number;
  url_token: string;
  kind: string;
  name: string | null;
  payload: Buffer | null;
  note: Buffer | null;
  passphrase_hash: string | null;
  passphrase_protected: number;
  expire_after_days: number;
  expire_after_views: number;
  view_count: number;
  deletable_by_viewer: number | null;
  retrieval_step: number;
  expired: number;
  deleted: number;
  expired_on: number | null;
  expires_at: number;
  created_at: number;
  updated_at: number;
}

export type NewPushRow = Omit<PushRow, 'id' | 'view_count' | 'expired' | 'deleted' | 'expired_on'>;

export interface AuditRow {
  pushId: number;
  kind: string;
  ip: string;
  userAgent: string;
  referrer: string;
  at: number;
}

/** The statements the service issues for create, retrieve and preview, written by hand. */
export interface FloorStore {
  insertPush(row: NewPushRow): Promise<number>;
  appendAudit(entry: AuditRow): Promise<void>;
  findByToken(urlToken: string): Promise<PushRow | undefined>;
  findLinkByToken(urlToken: string): Promise<Pick<PushRow, 'url_token' | 'retrieval_step'> | undefined>;
  /** The service's compare-and-set claim (PushesRepository.claimView); the last view also expires and wipes. */
  claimView(row: PushRow, now: number): Promise<boolean>;
  expire(id: number, now: number): Promise<void>;
  countAuditEntry(id: number, cap: number): Promise<boolean>;
  close(): Promise<void>;
}

const INSERT_PUSH = `INSERT INTO pushes (url_token, kind, name, payload, note, passphrase_hash, passphrase_protected,
  expire_after_days, expire_after_views, view_count, deletable_by_viewer, retrieval_step, expired, deleted, user_id,
  audit_entry_count, expired_on, expires_at, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, FALSE, FALSE, NULL, 1, NULL, ?, ?, ?)`;
const INSERT_AUDIT = 'INSERT INTO audit_entries (push_id, kind, ip, user_agent, referrer, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)';
const FIND = 'SELECT * FROM pushes WHERE url_token = ?';
const FIND_LINK = 'SELECT url_token, retrieval_step FROM pushes WHERE url_token = ?';
const CLAIM_WHERE = 'WHERE id = ? AND view_count = ? AND expired = FALSE AND expires_at > ?';
const CLAIM = `UPDATE pushes SET view_count = ?, updated_at = ?, audit_entry_count = audit_entry_count + 1 ${CLAIM_WHERE}`;
const CLAIM_LAST = `UPDATE pushes SET view_count = ?, updated_at = ?, audit_entry_count = audit_entry_count + 1,
  expired = TRUE, expired_on = ?, payload = NULL, passphrase_hash = NULL ${CLAIM_WHERE}`;
const EXPIRE = 'UPDATE pushes SET expired = TRUE, expired_on = ?, updated_at = ?, payload = NULL, passphrase_hash = NULL WHERE id = ? AND expired = FALSE';
const COUNT_AUDIT = 'UPDATE pushes SET audit_entry_count = audit_entry_count + 1 WHERE id = ? AND audit_entry_count < ?';

const insertParams = (r: NewPushRow) => [
  r.url_token,
  r.kind,
  r.name,
  r.payload,
  r.note,
  r.passphrase_hash,
  r.passphrase_protected,
  r.expire_after_days,
  r.expire_after_views,
  r.deletable_by_viewer,
  r.retrieval_step,
  r.expires_at,
  r.created_at,
  r.updated_at,
];
const auditParams = (a: AuditRow) => [a.pushId, a.kind, a.ip, a.userAgent, a.referrer, a.at, a.at];
const claimParams = (row: PushRow, now: number) => {
  const viewCount = row.view_count + 1;
  const last = viewCount >= row.expire_after_views;
  const where = [row.id, row.view_count, now];
  return { last, params: last ? [viewCount, now, now, ...where] : [viewCount, now, ...where] };
};

/** better-sqlite3 with the pragmas TypeORM and the service's prepareDatabase apply. */
export function sqliteStore(path: string): FloorStore {
  const db = new Database(path, { timeout: 5000 });
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('journal_mode = WAL');
  const s = {
    insertPush: db.prepare(INSERT_PUSH),
    insertAudit: db.prepare(INSERT_AUDIT),
    find: db.prepare<[string], PushRow>(FIND),
    findLink: db.prepare<[string], Pick<PushRow, 'url_token' | 'retrieval_step'>>(FIND_LINK),
    claim: db.prepare(CLAIM),
    claimLast: db.prepare(CLAIM_LAST),
    expire: db.prepare(EXPIRE),
    countAudit: db.prepare(COUNT_AUDIT),
  };
  return {
    insertPush: async (row) => Number(s.insertPush.run(...insertParams(row)).lastInsertRowid),
    appendAudit: async (entry) => void s.insertAudit.run(...auditParams(entry)),
    findByToken: async (token) => s.find.get(token),
    findLinkByToken: async (token) => s.findLink.get(token),
    claimView: async (row, now) => {
      const { last, params } = claimParams(row, now);
      return (last ? s.claimLast : s.claim).run(...params).changes === 1;
    },
    expire: async (id, now) => void s.expire.run(now, now, id),
    countAuditEntry: async (id, cap) => s.countAudit.run(id, cap).changes === 1,
    close: async () => void db.close(),
  };
}

/** A mysql2 pool of the service's size (10), with its connection options. */
export function mysqlStore(url: string): FloorStore {
  const pool: Pool = createPool({
    uri: url,
    connectionLimit: 10,
    charset: 'utf8mb4_unicode_ci',
    timezone: 'Z',
    supportBigNumbers: true,
    bigNumberStrings: false,
  });
  const write = async (sql: string, params: unknown[]) => (await pool.query<ResultSetHeader>(sql, params))[0];
  const first = async <T>(sql: string, token: string) => (await pool.query<RowDataPacket[]>(sql, [token]))[0][0] as T | undefined;
  return {
    insertPush: async (row) => (await write(INSERT_PUSH, insertParams(row))).insertId,
    appendAudit: async (entry) => void (await write(INSERT_AUDIT, auditParams(entry))),
    findByToken: (token) => first<PushRow>(FIND, token),
    findLinkByToken: (token) => first<Pick<PushRow, 'url_token' | 'retrieval_step'>>(FIND_LINK, token),
    claimView: async (row, now) => {
      const { last, params } = claimParams(row, now);
      return (await write(last ? CLAIM_LAST : CLAIM, params)).affectedRows === 1;
    },
    expire: async (id, now) => void (await write(EXPIRE, [now, now, id])),
    countAuditEntry: async (id, cap) => (await write(COUNT_AUDIT, [id, cap])).affectedRows === 1,
    close: () => pool.end(),
  };
}

/** PostgreSQL's spelling of a statement: `$1..$n` placeholders; an INSERT returns its id. */
function postgresText(sql: string): string {
  let n = 0;
  const text = sql.replace(/\?/g, () => `$${++n}`);
  return text.startsWith('INSERT') ? `${text} RETURNING id` : text;
}

type PgPushRow = Omit<PushRow, 'passphrase_protected' | 'deletable_by_viewer' | 'retrieval_step' | 'expired' | 'deleted' | 'expired_on' | 'expires_at' | 'created_at' | 'updated_at'> & {
  passphrase_protected: boolean;
  deletable_by_viewer: boolean | null;
  retrieval_step: boolean;
  expired: boolean;
  deleted: boolean;
  /** BIGINT arrives as a string. */
  expired_on: string | null;
  expires_at: string;
  created_at: string;
  updated_at: string;
};

const bit = (value: boolean) => (value ? 1 : 0);

/** A row as the other drivers give it, as the service's repository converts it too. */
function fromPostgres(row: PgPushRow): PushRow {
  return {
    ...row,
    passphrase_protected: bit(row.passphrase_protected),
    deletable_by_viewer: row.deletable_by_viewer === null ? null : bit(row.deletable_by_viewer),
    retrieval_step: bit(row.retrieval_step),
    expired: bit(row.expired),
    deleted: bit(row.deleted),
    expired_on: row.expired_on === null ? null : Number(row.expired_on),
    expires_at: Number(row.expires_at),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

/** A node-postgres pool of the service's size (10). */
export function postgresStore(url: string): FloorStore {
  const pool = new PgPool({ connectionString: url, max: 10, application_name: 'pwpush-floor' });
  const [insertPush, insertAudit, find, findLink, claim, claimLast, expire, countAudit] = [INSERT_PUSH, INSERT_AUDIT, FIND, FIND_LINK, CLAIM, CLAIM_LAST, EXPIRE, COUNT_AUDIT].map(postgresText);
  const affected = async (sql: string, params: unknown[]) => (await pool.query(sql, params)).rowCount ?? 0;
  return {
    insertPush: async (row) => Number((await pool.query<{ id: number }>(insertPush, insertParams(row))).rows[0].id),
    appendAudit: async (entry) => void (await pool.query(insertAudit, auditParams(entry))),
    findByToken: async (token) => {
      const [row] = (await pool.query<PgPushRow>(find, [token])).rows;
      return row && fromPostgres(row);
    },
    findLinkByToken: async (token) => {
      const [row] = (await pool.query<{ url_token: string; retrieval_step: boolean }>(findLink, [token])).rows;
      return row && { url_token: row.url_token, retrieval_step: bit(row.retrieval_step) };
    },
    claimView: async (row, now) => {
      const { last, params } = claimParams(row, now);
      return (await affected(last ? claimLast : claim, params)) === 1;
    },
    expire: async (id, now) => void (await affected(expire, [now, now, id])),
    countAuditEntry: async (id, cap) => (await affected(countAudit, [id, cap])) === 1,
    close: () => pool.end(),
  };
}
