import { Injectable } from '@nestjs/common';
import { InsertedId, Sql, Statement } from '@app/database';
import { AuditEntryEntity, AuditKind, RequestAuditKind } from './audit-entry.entity';
import { type InstanceLogEntry, type InstanceLogQuery, type InstanceLogSource, instanceLogStatement, SUBJECTS_OF_ENTRIES, toInstanceLogEntry } from './instance-log';

export interface NewAuditEntry {
  /** The push; or the id of the push the same batch inserts first. */
  pushId: number | InsertedId;
  kind: AuditKind;
  ip: string;
  userAgent: string;
  referrer: string;
  at: number;
  details?: string;
}

const APPEND = 'INSERT INTO audit_entries (push_id, kind, ip, user_agent, referrer, details, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)';
const SELECT_PAGE =
  'SELECT id, push_id, kind, ip, user_agent, referrer, details, created_at, updated_at FROM audit_entries WHERE push_id = ? ORDER BY id ASC LIMIT ? OFFSET ?';
/** What each entry adds to its batch's totals: the push's count of entries follows them (see WriteBatch). */
export const AUDIT_ENTRIES = 'audit_entries';
const APPEND_FOR_REQUEST = 'INSERT INTO request_audit_entries (request_id, kind, ip, user_agent, referrer, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)';
const SELECT_REQUEST_PAGE =
  'SELECT id, request_id, kind, ip, user_agent, referrer, NULL AS details, created_at, updated_at FROM request_audit_entries WHERE request_id = ? ORDER BY id ASC LIMIT ? OFFSET ?';
const UPDATE_DETAILS = 'UPDATE audit_entries SET details = ?, updated_at = ? WHERE id = ?';

type AuditRow = Record<'id' | 'kind' | 'ip' | 'user_agent' | 'referrer' | 'details' | 'created_at' | 'updated_at', unknown> & { push_id?: unknown; request_id?: unknown };

const toEntry = (row: AuditRow): AuditEntryEntity => ({
  id: Number(row.id),
  pushId: Number(row.push_id ?? row.request_id),
  kind: row.kind as AuditKind,
  ip: row.ip as string,
  userAgent: row.user_agent as string,
  referrer: row.referrer as string,
  details: (row.details as string | null) ?? null,
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

@Injectable()
export class AuditRepository {
  constructor(private readonly sql: Sql) {}

  /** The statement appending an entry, for the batch of the change it records (see Sql.run). */
  append(entry: NewAuditEntry): Statement {
    return {
      sql: APPEND,
      parameters: [entry.pushId, entry.kind, entry.ip.slice(0, 45), entry.userAgent, entry.referrer, entry.details ?? null, entry.at, entry.at],
      adds: { [AUDIT_ENTRIES]: 1 },
    };
  }

  /** The statement appending an entry to a secret request's log; it adds 1 to the batch's AUDIT_ENTRIES too. */
  appendForRequest(entry: Omit<NewAuditEntry, 'pushId' | 'details' | 'kind'> & { requestId: number | InsertedId; kind: RequestAuditKind }): Statement {
    return {
      sql: APPEND_FOR_REQUEST,
      parameters: [entry.requestId, entry.kind, entry.ip.slice(0, 45), entry.userAgent, entry.referrer, entry.at, entry.at],
      adds: { [AUDIT_ENTRIES]: 1 },
    };
  }

  /** A page of a request's entries, oldest first, in the shape of a push's (no details). */
  async pageForRequest(requestId: number, offset: number, limit: number): Promise<AuditEntryEntity[]> {
    return (await this.sql.rows<AuditRow>(SELECT_REQUEST_PAGE, [requestId, limit, offset])).map(toEntry);
  }

  async updateDetails(id: number, details: string, at: number): Promise<void> {
    await this.sql.write(UPDATE_DETAILS, [details, at, id]);
  }

  async count(): Promise<number> {
    const [row] = await this.sql.rows<{ n: unknown }>('SELECT COUNT(*) AS n FROM audit_entries', []);
    return Number(row.n);
  }

  /** A page of the instance's log of pushes or of requests, newest first (see instanceLogStatement). */
  async instancePage(source: InstanceLogSource, query: InstanceLogQuery): Promise<InstanceLogEntry[]> {
    const { sql, parameters } = instanceLogStatement(query, source);
    const rows = await this.sql.rows<Record<string, unknown>>(sql, parameters);
    const ids = [...new Set(rows.map((row) => Number(row.subject_id)))];
    const subjects = ids.length === 0 ? [] : await this.sql.rows<Record<string, unknown>>(SUBJECTS_OF_ENTRIES(source, ids.length), ids);
    const byId = new Map(subjects.map((subject) => [Number(subject.id), subject]));
    return rows.map((row) => toInstanceLogEntry(source, row, byId.get(Number(row.subject_id))));
  }

  /** A page of a push's entries, oldest first (insertion order); plain SQL as the owner's list pages. */
  async pageForPush(pushId: number, offset: number, limit: number): Promise<AuditEntryEntity[]> {
    return (await this.sql.rows<AuditRow>(SELECT_PAGE, [pushId, limit, offset])).map(toEntry);
  }
}
