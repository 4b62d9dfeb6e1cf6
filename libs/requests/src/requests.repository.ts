import { Injectable } from '@nestjs/common';
import { AUDIT_ENTRIES } from '@app/audit';
import { InsertedId, Sql, Statement, total, WriteBatch } from '@app/database';
import { RequestEntity, RequestState } from './request.entity';

export type NewRequest = Omit<RequestEntity, 'id' | 'state' | 'response' | 'respondedAt' | 'closedAt' | 'auditEntryCount'>;
/** A request as it is read by token: with its requester's address (shown with include_requestor) and whether they have endpoints. */
export type StoredRequest = RequestEntity & { ownerEmail: string; ownerHasWebhooks: boolean; ownerLanguage: string | null };
/** What a change writes with it, in its batch: its audit entries, its events. */
export type Then = (batch: WriteBatch) => void;

const URL_TOKEN = /^[A-Za-z0-9_-]{1,64}$/;
const COLUMNS = [
  'url_token', 'user_id', 'message', 'name', 'note', 'response', 'passphrase_hash', 'passphrase_protected', 'retrieval_step', 'include_requestor',
  'response_file_attachments', 'state', 'close_after_duration', 'close_after_at', 'responded_at', 'closed_at', 'audit_entry_count', 'created_at', 'updated_at',
] as const;
type RequestRow = Record<(typeof COLUMNS)[number] | 'id', unknown> & { owner_email?: unknown; has_webhooks?: unknown; owner_language?: unknown };

const AUDITED = total(AUDIT_ENTRIES);
const INSERT = `INSERT INTO requests (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`;
const SELECT_BY_TOKEN =
  `SELECT r.id, ${COLUMNS.map((column) => `r.${column}`).join(', ')}, u.email AS owner_email, u.has_webhooks AS has_webhooks, u.preferred_language AS owner_language ` +
  'FROM requests r JOIN users u ON u.id = r.user_id WHERE r.url_token = ?';
/** What closing destroys: the answer and the means to check the passphrase (the files go right after, see RequestClosing). */
const CLOSE = "state = 'closed', closed_at = ?, updated_at = ?, response = NULL, passphrase_hash = NULL";
/** The one answer: only an open request whose time has not come takes it, so of concurrent answers exactly one changes the row. */
const RESPOND =
  "UPDATE requests SET state = 'ready', response = ?, responded_at = ?, updated_at = ?, audit_entry_count = audit_entry_count + ? " +
  "WHERE id = ? AND state = 'open' AND close_after_at > ?";
const CLOSE_ONE = `UPDATE requests SET ${CLOSE}, audit_entry_count = audit_entry_count + ? WHERE id = ? AND state <> 'closed'`;
const COUNT_AUDIT_ENTRY = 'UPDATE requests SET audit_entry_count = audit_entry_count + ? WHERE id = ?';
/** Not yet closed, by the (state, close_after_at) index: two ranges of it rather than a scan of `state <> 'closed'`. */
const UNCLOSED = "state IN ('open', 'ready')";
const SELECT_ELAPSED = `SELECT id FROM requests WHERE ${UNCLOSED} AND close_after_at <= ? ORDER BY close_after_at LIMIT ?`;
const SELECT_ELAPSED_OWNED = `SELECT id FROM requests WHERE user_id = ? AND ${UNCLOSED} AND close_after_at <= ?`;
/** Of these requests, those not closed whose owners have endpoints: each is closed on its own, with its event. */
const SELECT_HEARD_AMONG = (n: number) =>
  `SELECT r.id, ${COLUMNS.map((column) => `r.${column}`).join(', ')}, u.email AS owner_email, u.has_webhooks AS has_webhooks ` +
  `FROM requests r JOIN users u ON u.id = r.user_id WHERE r.id IN (${new Array<string>(n).fill('?').join(', ')}) AND r.${UNCLOSED} AND u.has_webhooks = TRUE`;
const SELECT_CLOSED_BEFORE = "SELECT id FROM requests WHERE state = 'closed' AND closed_at < ? ORDER BY closed_at LIMIT ?";
/** What a list never shows, so a page does not read it: the answer and the passphrase's hash. */
const UNLISTED: ReadonlySet<string> = new Set(['response', 'passphrase_hash']);
/** A page of the owner's requests in some states: the page's ids from the (user_id, state, id) index, then only those rows. */
const SELECT_OWNED_PAGE =
  `SELECT r.id, ${COLUMNS.map((column) => (UNLISTED.has(column) ? `NULL AS ${column}` : `r.${column}`)).join(', ')} FROM requests r ` +
  'JOIN (SELECT id FROM requests WHERE user_id = ? AND state IN (?, ?) ORDER BY id DESC LIMIT ? OFFSET ?) owned ON owned.id = r.id';

const flag = (value: boolean) => (value ? 1 : 0);
const nullableNumber = (value: unknown) => (value === null || value === undefined ? null : Number(value));
const inList = (ids: number[]) => ids.map(() => '?').join(', ');

function toRequest(row: RequestRow): StoredRequest {
  return {
    id: Number(row.id),
    urlToken: row.url_token as string,
    userId: Number(row.user_id),
    message: row.message as Buffer,
    name: row.name as string | null,
    note: row.note as Buffer | null,
    response: row.response as Buffer | null,
    passphraseHash: row.passphrase_hash as string | null,
    passphraseProtected: Number(row.passphrase_protected) === 1,
    retrievalStep: Number(row.retrieval_step) === 1,
    includeRequestor: Number(row.include_requestor) === 1,
    responseFileAttachments: Number(row.response_file_attachments) === 1,
    state: row.state as RequestState,
    closeAfterDuration: Number(row.close_after_duration),
    closeAfterAt: Number(row.close_after_at),
    respondedAt: nullableNumber(row.responded_at),
    closedAt: nullableNumber(row.closed_at),
    auditEntryCount: Number(row.audit_entry_count),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    ownerEmail: (row.owner_email as string | undefined) ?? '',
    ownerHasWebhooks: Number(row.has_webhooks ?? 0) === 1,
    ownerLanguage: (row.owner_language as string | null | undefined) ?? null,
  };
}

/**
 * Every query on secret requests, in plain SQL (see Sql) that SQLite, MySQL and PostgreSQL run
 * alike. State changes are single conditional UPDATEs whose affected-row count says whether this
 * caller won, so they hold with any number of replicas; what must not happen without the change
 * (its audit entries, its events: `then`) is written in its batch, only when the change won.
 */
@Injectable()
export class RequestsRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Inserts a request with what `then` writes in the same batch (its creation entry, its link
   * mail), naming the new row by `requestId`; null when a guard `then` added refused the batch.
   */
  async insert(request: NewRequest, then: (batch: WriteBatch, requestId: InsertedId) => void): Promise<RequestEntity | null> {
    const batch = new WriteBatch({
      sql: INSERT,
      parameters: [
        request.urlToken, request.userId, request.message, request.name, request.note, null, request.passphraseHash, flag(request.passphraseProtected),
        flag(request.retrievalStep), flag(request.includeRequestor), flag(request.responseFileAttachments), 'open', request.closeAfterDuration,
        request.closeAfterAt, null, null, AUDITED, request.createdAt, request.updatedAt,
      ],
    }, 'request');
    then(batch, batch.guardId);
    const written = await this.sql.run(batch);
    if (!written) return null;
    const auditEntryCount = batch.total(AUDIT_ENTRIES);
    return { ...request, id: written.idOf(batch.guardId), state: 'open', response: null, respondedAt: null, closedAt: null, auditEntryCount };
  }

  /** Only well-formed tokens reach the database. */
  async findByToken(urlToken: string): Promise<StoredRequest | null> {
    if (!URL_TOKEN.test(urlToken)) return null;
    const [row] = await this.sql.rows<RequestRow>(SELECT_BY_TOKEN, [urlToken]);
    return row ? toRequest(row) : null;
  }

  /** Stores the one answer of an open request whose time has not come at `now`; false when another answer (or the close) came first. */
  respond(id: number, response: Buffer, now: number, then: Then): Promise<boolean> {
    return this.writeIf({ sql: RESPOND, parameters: [response, now, now, AUDITED, id, now] }, then);
  }

  /** Closes a request that is not closed yet, destroying its answer; false when it already was. */
  close(id: number, now: number, then: Then): Promise<boolean> {
    return this.writeIf({ sql: CLOSE_ONE, parameters: [now, now, AUDITED, id] }, then);
  }

  /** Counts the audit entries `then` writes; with `cap`, only while the request has fewer entries than that. */
  countAuditEntry(id: number, cap: number | undefined, then: Then): Promise<boolean> {
    const count =
      cap === undefined ? { sql: COUNT_AUDIT_ENTRY, parameters: [AUDITED, id] } : { sql: `${COUNT_AUDIT_ENTRY} AND audit_entry_count < ?`, parameters: [AUDITED, id, cap] };
    return this.writeIf(count, then);
  }

  /** Up to `limit` requests not closed whose time has come at `now`, soonest first (the sweep's batch). */
  async elapsed(now: number, limit: number): Promise<number[]> {
    return this.ids(SELECT_ELAPSED, [now, limit]);
  }

  /** The owner's requests not closed whose time has come at `now`, so their lists agree with reads. */
  async elapsedOwnedBy(userId: number, now: number): Promise<number[]> {
    return this.ids(SELECT_ELAPSED_OWNED, [userId, now]);
  }

  /**
   * Closes these requests if their time has come at `now` and they are not closed yet, in one
   * statement that re-checks both, so replicas closing the same rows at once never close one
   * twice; returns how many this call closed.
   */
  async closeElapsed(ids: number[], now: number): Promise<number> {
    if (ids.length === 0) return 0;
    const sql = `UPDATE requests SET ${CLOSE} WHERE id IN (${inList(ids)}) AND ${UNCLOSED} AND close_after_at <= ?`;
    return (await this.sql.write(sql, [now, now, ...ids, now])).affected;
  }

  /** Of these requests, the ones not closed whose owners have endpoints (they hear of each close). */
  async heardAmong(ids: number[]): Promise<StoredRequest[]> {
    if (ids.length === 0) return [];
    return (await this.sql.rows<RequestRow>(SELECT_HEARD_AMONG(ids.length), ids)).map(toRequest);
  }

  /** Closes one request if its time has come at `now`, with what `then` writes; false when it was closed already. */
  closeIfElapsed(id: number, now: number, then: Then): Promise<boolean> {
    return this.writeIf({ sql: `UPDATE requests SET ${CLOSE} WHERE id = ? AND ${UNCLOSED} AND close_after_at <= ?`, parameters: [now, now, id, now] }, then);
  }

  /** Up to `limit` requests closed before `cutoff`, oldest first: the next ones to purge. */
  closedBefore(cutoff: number, limit: number): Promise<number[]> {
    return this.ids(SELECT_CLOSED_BEFORE, [cutoff, limit]);
  }

  /** Deletes these requests if they are closed; their audit entries go with them (FK cascade). */
  async deleteClosed(ids: number[]): Promise<number> {
    if (ids.length === 0) return 0;
    return (await this.sql.write(`DELETE FROM requests WHERE id IN (${inList(ids)}) AND state = 'closed'`, ids)).affected;
  }

  /** One page of the owner's requests in `states` (one or two), newest first; one row more than asked tells whether a next page exists. */
  async findOwned(userId: number, states: readonly RequestState[], offset: number, limit: number): Promise<RequestEntity[]> {
    const rows = await this.sql.rows<RequestRow>(SELECT_OWNED_PAGE, [userId, states[0], states[1] ?? states[0], limit, offset]);
    return rows.map(toRequest).sort((a, b) => b.id - a.id);
  }

  private async ids(sql: string, parameters: unknown[]): Promise<number[]> {
    return (await this.sql.rows<{ id: unknown }>(sql, parameters)).map((row) => Number(row.id));
  }

  private async writeIf(guard: Statement, then: Then): Promise<boolean> {
    const batch = new WriteBatch(guard);
    then(batch);
    return (await this.sql.run(batch)) !== null;
  }
}
