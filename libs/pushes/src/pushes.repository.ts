import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AUDIT_ENTRIES } from '@app/audit';
import { ownerWebhooksJoin } from '@app/auth';
import { InsertedId, Sql, Statement, total, WriteBatch } from '@app/database';
import { LINK_MAIL_RECIPIENTS } from '@app/events';
import { PushEntity } from './push.entity';

export type PushLink = Pick<PushEntity, 'urlToken' | 'retrievalStep'>;
export type NewPush = Omit<PushEntity, 'id' | 'viewCount' | 'expired' | 'deleted' | 'expiredOn' | 'auditEntryCount' | 'notifyEmailsCount'>;
/** A push as a retrieval reads it: with whether its owner has endpoints, so events are recorded only then, at no extra query. */
export type StoredPush = PushEntity & { ownerHasWebhooks: boolean };
/** What a change writes with it, in its batch: its audit entries, its events, a link mail. */
export type Then = (batch: WriteBatch) => void;

/** What an expiry destroys: the secret and the means to check its passphrase. */
const DESTROY = 'payload = NULL, passphrase_hash = NULL';
const URL_TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

const COLUMNS = [
  'url_token', 'kind', 'name', 'payload', 'note', 'passphrase_hash', 'passphrase_protected', 'expire_after_days',
  'expire_after_views', 'view_count', 'deletable_by_viewer', 'retrieval_step', 'expired', 'deleted', 'user_id',
  'audit_entry_count', 'notify_emails_count', 'expired_on', 'expires_at', 'created_at', 'updated_at',
] as const;
type PushRow = Record<(typeof COLUMNS)[number] | 'id', unknown> & { has_webhooks?: unknown };

const INSERT = `INSERT INTO pushes (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`;
const OWNER = ownerWebhooksJoin('p.user_id');
const SELECT_WITH_OWNER = `SELECT p.id, ${COLUMNS.map((column) => `p.${column}`).join(', ')}, ${OWNER.hasWebhooks} AS has_webhooks FROM pushes p ${OWNER.join}`;
const SELECT_BY_TOKEN = `${SELECT_WITH_OWNER} WHERE p.url_token = ?`;
/** Elapsed active pushes whose owners have endpoints: each is expired on its own, with its event. */
const SELECT_ELAPSED_HEARD = `${SELECT_WITH_OWNER} WHERE p.expired = FALSE AND p.expires_at <= ? AND ${OWNER.hasWebhooks} = TRUE`;
const SELECT_LINK_BY_TOKEN = 'SELECT url_token, retrieval_step FROM pushes WHERE url_token = ?';
// The counters follow what the batch adds (its audit entries, a link mail's recipients): see WriteBatch.
const AUDITED = total(AUDIT_ENTRIES);
const MAILED = total(LINK_MAIL_RECIPIENTS);
const CLAIM = 'view_count = ?, updated_at = ?, audit_entry_count = audit_entry_count + ?';
const CLAIM_WHERE = 'WHERE id = ? AND view_count = ? AND expired = FALSE AND expires_at > ?';
const CLAIM_VIEW = `UPDATE pushes SET ${CLAIM} ${CLAIM_WHERE}`;
const CLAIM_LAST_VIEW = `UPDATE pushes SET ${CLAIM}, expired = TRUE, expired_on = ?, ${DESTROY} ${CLAIM_WHERE}`;
const EXPIRE = `UPDATE pushes SET expired = TRUE, deleted = ?, expired_on = ?, updated_at = ?, ${DESTROY}, audit_entry_count = audit_entry_count + ? WHERE id = ? AND expired = FALSE`;
const COUNT_AUDIT_ENTRY = 'UPDATE pushes SET audit_entry_count = audit_entry_count + ? WHERE id = ?';
const COUNT_NOTIFY_EMAILS =
  'UPDATE pushes SET notify_emails_count = notify_emails_count + ?, audit_entry_count = audit_entry_count + ? WHERE id = ? AND notify_emails_count + ? <= ?';
/** What a list never shows, so a page does not read it: the secret and its passphrase's hash (a third of a page's cost on SQLite). */
const UNLISTED: ReadonlySet<string> = new Set(['payload', 'passphrase_hash']);
/**
 * A page of the owner's pushes: the page's ids from the (user_id, expired, id) index alone (it
 * holds every column the subquery reads), then only those rows. The OFFSET skips index entries,
 * not rows: page 200 of an owner's 10,000 pushes reads 51 rows rather than 10,000 scattered over
 * the table. The join gives no order; findOwned puts the few rows in order.
 */
const SELECT_OWNED_PAGE =
  `SELECT p.id, ${COLUMNS.map((column) => (UNLISTED.has(column) ? `NULL AS ${column}` : `p.${column}`)).join(', ')} FROM pushes p ` +
  'JOIN (SELECT id FROM pushes WHERE user_id = ? AND expired = ? ORDER BY id DESC LIMIT ? OFFSET ?) owned ON owned.id = p.id';

const COUNT_PUSHES = 'SELECT COUNT(*) AS total, SUM(CASE WHEN expired = FALSE THEN 1 ELSE 0 END) AS active FROM pushes';
/** What the administration lists of a push: no payload, passphrase, name or note, and only the token's first characters. */
const SELECT_METADATA =
  'SELECT id, SUBSTR(url_token, 1, 4) AS token_start, kind, user_id, view_count, expire_after_views, expired, expires_at, created_at FROM pushes';

/** A push as the administration lists it. */
export interface PushMetadata {
  id: number;
  /** The token's first four characters: enough to tell pushes apart, never enough to open one. */
  tokenStart: string;
  kind: PushEntity['kind'];
  userId: number | null;
  viewCount: number;
  expireAfterViews: number;
  expired: boolean;
  expiresAt: number;
  createdAt: number;
}

/** A boolean parameter: better-sqlite3 binds no booleans; MySQL and PostgreSQL read 1 and 0 as booleans. */
const flag = (value: boolean) => (value ? 1 : 0);
const nullableNumber = (value: unknown) => (value === null ? null : Number(value));

function toPush(row: PushRow): StoredPush {
  return {
    id: Number(row.id),
    urlToken: row.url_token as string,
    kind: row.kind as PushEntity['kind'],
    name: row.name as string | null,
    payload: row.payload as Buffer | null,
    note: row.note as Buffer | null,
    passphraseHash: row.passphrase_hash as string | null,
    passphraseProtected: Number(row.passphrase_protected) === 1,
    expireAfterDays: Number(row.expire_after_days),
    expireAfterViews: Number(row.expire_after_views),
    viewCount: Number(row.view_count),
    deletableByViewer: row.deletable_by_viewer === null ? null : Number(row.deletable_by_viewer) === 1,
    retrievalStep: Number(row.retrieval_step) === 1,
    expired: Number(row.expired) === 1,
    deleted: Number(row.deleted) === 1,
    userId: nullableNumber(row.user_id),
    auditEntryCount: Number(row.audit_entry_count),
    notifyEmailsCount: Number(row.notify_emails_count),
    expiredOn: nullableNumber(row.expired_on),
    expiresAt: Number(row.expires_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    ownerHasWebhooks: Number(row.has_webhooks ?? 0) === 1,
  };
}

/**
 * Every query on pushes. State changes are single conditional UPDATEs whose affected-row count
 * says whether this caller won, so they hold with any number of replicas. What must not happen
 * without the change (its audit entries, its events: `then`) is written in its batch, and only
 * when the change won (Sql.run); the push's counters of audit entries and mailed recipients are
 * raised in the change's own statement, by what the batch adds.
 * The per-request operations and the list pages are plain SQL (see Sql); sweeps use the query builder.
 */
@Injectable()
export class PushesRepository {
  constructor(
    @InjectRepository(PushEntity) private readonly pushes: Repository<PushEntity>,
    private readonly sql: Sql,
  ) {}

  /**
   * Inserts a push with what `then` writes in the same batch (its audit entries, a link mail, its
   * events), which names the new push by `pushId`. Null when a guard of `then` refused it (the daily
   * limit of link mails): nothing is written.
   */
  async insert(push: NewPush, then: (batch: WriteBatch, pushId: InsertedId) => void): Promise<PushEntity | null> {
    const batch = new WriteBatch({
      sql: INSERT,
      parameters: [
        push.urlToken, push.kind, push.name, push.payload, push.note, push.passphraseHash, flag(push.passphraseProtected),
        push.expireAfterDays, push.expireAfterViews, 0, push.deletableByViewer === null ? null : flag(push.deletableByViewer),
        flag(push.retrievalStep), flag(false), flag(false), push.userId, AUDITED, MAILED, null, push.expiresAt, push.createdAt, push.updatedAt,
      ],
    }, 'push');
    then(batch, batch.guardId);
    const written = await this.sql.run(batch);
    if (!written) return null;
    const counts = { auditEntryCount: batch.total(AUDIT_ENTRIES), notifyEmailsCount: batch.total(LINK_MAIL_RECIPIENTS) };
    return { ...push, id: written.idOf(batch.guardId), viewCount: 0, expired: false, deleted: false, expiredOn: null, ...counts };
  }

  /** A push by its id (the administration names pushes by id, never by token). */
  async findById(id: number): Promise<StoredPush | null> {
    const [row] = await this.sql.rows<PushRow>(`${SELECT_WITH_OWNER} WHERE p.id = ?`, [id]);
    return row ? toPush(row) : null;
  }

  /** How many pushes there are, and how many of them are active. */
  async counts(): Promise<{ total: number; active: number }> {
    const [row] = await this.sql.rows<{ total: unknown; active: unknown }>(COUNT_PUSHES, []);
    return { total: Number(row.total), active: Number(row.active ?? 0) };
  }

  /** Newest first, older than `before` (keyset by id): only the columns the administration shows, never a secret, name or note. */
  async findMetadataPage(before: number | undefined, limit: number): Promise<PushMetadata[]> {
    const rows = await this.sql.rows<Record<string, unknown>>(
      before === undefined ? `${SELECT_METADATA} ORDER BY id DESC LIMIT ?` : `${SELECT_METADATA} WHERE id < ? ORDER BY id DESC LIMIT ?`,
      before === undefined ? [limit] : [before, limit],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      tokenStart: String(row.token_start),
      kind: row.kind as PushEntity['kind'],
      userId: nullableNumber(row.user_id),
      viewCount: Number(row.view_count),
      expireAfterViews: Number(row.expire_after_views),
      expired: Number(row.expired) === 1 || row.expired === true,
      expiresAt: Number(row.expires_at),
      createdAt: Number(row.created_at),
    }));
  }

  /** Only well-formed tokens reach the database: URL-safe base64 characters, nothing else. */
  async findByToken(urlToken: string): Promise<StoredPush | null> {
    if (!URL_TOKEN.test(urlToken)) return null;
    const [row] = await this.sql.rows<PushRow>(SELECT_BY_TOKEN, [urlToken]);
    return row ? toPush(row) : null;
  }

  /** What a push's link needs (its preview): no secret, nothing to decrypt or map. */
  async findLinkByToken(urlToken: string): Promise<PushLink | null> {
    if (!URL_TOKEN.test(urlToken)) return null;
    const [row] = await this.sql.rows<{ url_token: string; retrieval_step: unknown }>(SELECT_LINK_BY_TOKEN, [urlToken]);
    return row ? { urlToken: row.url_token, retrievalStep: Number(row.retrieval_step) === 1 } : null;
  }

  /**
   * Claims the next view of `seen` by compare-and-set on its view count. Succeeds only if nobody
   * changed the push since it was read, it is active and its window is open at `now`. The claim
   * that uses the last view expires the push and destroys the secret in the same statement.
   */
  claimView(seen: PushEntity, now: number, then: Then): Promise<boolean> {
    const viewCount = seen.viewCount + 1;
    const where = [seen.id, seen.viewCount, now];
    const claim =
      viewCount >= seen.expireAfterViews
        ? { sql: CLAIM_LAST_VIEW, parameters: [viewCount, now, AUDITED, now, ...where] }
        : { sql: CLAIM_VIEW, parameters: [viewCount, now, AUDITED, ...where] };
    return this.writeIf(claim, then);
  }

  /** Expires an active push (`deleted`: at someone's request); false when it was already expired (someone else got there first). */
  expire(id: number, now: number, deleted: boolean, then: Then): Promise<boolean> {
    return this.writeIf({ sql: EXPIRE, parameters: [flag(deleted), now, now, AUDITED, id] }, then);
  }

  /** Counts the audit entries `then` writes; with `cap`, only while the push has fewer entries than that. */
  countAuditEntry(id: number, cap: number | undefined, then: Then): Promise<boolean> {
    const count =
      cap === undefined ? { sql: COUNT_AUDIT_ENTRY, parameters: [AUDITED, id] } : { sql: `${COUNT_AUDIT_ENTRY} AND audit_entry_count < ?`, parameters: [AUDITED, id, cap] };
    return this.writeIf(count, then);
  }

  /**
   * Counts the recipients of the link mail `then` writes, and its audit entry, unless that would
   * make more than `max` for the push: concurrent requests cannot pass the cap together.
   */
  countNotifyEmails(id: number, max: number, then: Then): Promise<boolean> {
    return this.writeIf({ sql: COUNT_NOTIFY_EMAILS, parameters: [MAILED, AUDITED, id, MAILED, max] }, then);
  }

  /** Active pushes whose day window has elapsed at `now` and whose owners have endpoints (of one owner, with `userId`). */
  async findElapsedHeard(now: number, limit: number, userId?: number): Promise<StoredPush[]> {
    const rows =
      userId === undefined
        ? await this.sql.rows<PushRow>(`${SELECT_ELAPSED_HEARD} ORDER BY p.expires_at LIMIT ?`, [now, limit])
        : await this.sql.rows<PushRow>(`${SELECT_ELAPSED_HEARD} AND p.user_id = ? LIMIT ?`, [now, userId, limit]);
    return rows.map(toPush);
  }

  /** One page of the owner's pushes, newest first; one row more than asked tells whether a next page exists. */
  async findOwned(userId: number, expired: boolean, offset: number, limit: number): Promise<PushEntity[]> {
    const rows = await this.sql.rows<PushRow>(SELECT_OWNED_PAGE, [userId, flag(expired), limit, offset]);
    return rows.map(toPush).sort((a, b) => b.id - a.id);
  }

  /** Expires the owner's pushes whose day window has elapsed, so lists agree with retrievals; returns how many. */
  expireElapsedOwnedBy(userId: number, now: number): Promise<number> {
    return this.expireWhere('user_id = ? AND expires_at <= ?', [userId, now], now);
  }

  /**
   * Expires up to `batch` active pushes whose day window has elapsed at `now`; returns how many
   * this call expired. The ids come from the (expired, expires_at) index; the UPDATE re-checks
   * the condition, so replicas sweeping at the same moment never expire a push twice.
   */
  async expireElapsedBatch(now: number, batch: number): Promise<number> {
    const ids = await this.idsWhere('expired = FALSE AND expires_at <= :now', { now }, 'expires_at', batch);
    return ids.length === 0 ? 0 : this.expireWhere(`id IN (${ids.map(() => '?').join(', ')}) AND expires_at <= ?`, [...ids, now], now);
  }

  /** Up to `batch` pushes that expired before `cutoff`, oldest first: the next ones to purge. */
  expiredBefore(cutoff: number, batch: number): Promise<number[]> {
    return this.idsWhere('expired = TRUE AND expired_on < :cutoff', { cutoff }, 'expired_on', batch);
  }

  /** Deletes these pushes if they are expired; their audit entries go with them (FK cascade). */
  async deleteExpired(ids: number[]): Promise<number> {
    if (ids.length === 0) return 0;
    const result = await this.pushes.createQueryBuilder().delete().where('id IN (:...ids) AND expired = TRUE', { ids }).execute();
    return result.affected ?? 0;
  }

  private async idsWhere(condition: string, parameters: Record<string, number>, orderBy: string, limit: number): Promise<number[]> {
    const rows: { id: number }[] = await this.pushes
      .createQueryBuilder('p')
      .select('p.id', 'id')
      .where(condition, parameters)
      .orderBy(orderBy)
      .limit(limit)
      .getRawMany();
    return rows.map((row) => Number(row.id));
  }

  /** The owner's file pushes, active or not (their files are destroyed with the owner's account). */
  async filePushIdsOwnedBy(userId: number): Promise<number[]> {
    const rows = await this.sql.rows<{ id: unknown }>("SELECT id FROM pushes WHERE user_id = ? AND kind = 'file'", [userId]);
    return rows.map((row) => Number(row.id));
  }

  /** Deletes the owner's pushes once they are expired; their audit entries go with them (FK cascade). */
  async deleteOwned(userId: number): Promise<number> {
    return (await this.sql.write('DELETE FROM pushes WHERE user_id = ? AND expired = TRUE', [userId])).affected;
  }

  /** Expires every active push of the owner (the owner's account is being deleted). */
  expireAllOwnedBy(userId: number, now: number): Promise<number> {
    return this.expireWhere('user_id = ?', [userId], now);
  }

  /** Whether `guard` changed its row, with what `then` adds written in its batch (see Sql.run). */
  private async writeIf(guard: Statement, then: Then): Promise<boolean> {
    const batch = new WriteBatch(guard);
    then(batch);
    return (await this.sql.run(batch)) !== null;
  }

  /**
   * Expires the active pushes that also match `condition`, destroying their secrets, in one
   * set-based UPDATE that re-checks `expired = FALSE`; returns how many this call expired. Plain
   * SQL (see Sql): the owner's expiry runs before every list page.
   */
  private async expireWhere(condition: string, parameters: unknown[], now: number): Promise<number> {
    const sql = `UPDATE pushes SET expired = TRUE, expired_on = ?, updated_at = ?, ${DESTROY} WHERE expired = FALSE AND ${condition}`;
    return (await this.sql.write(sql, [now, now, ...parameters])).affected;
  }
}
