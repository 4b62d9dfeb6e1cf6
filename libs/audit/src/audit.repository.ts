import { Injectable } from '@nestjs/common';
import { Sql, Statement, WriteResult } from '@app/database';
import { AuditEntryEntity, AuditKind } from './audit-entry.entity';

export interface NewAuditEntry {
  /** The push; or, in a transaction that inserts it first, read from what the earlier statements wrote. */
  pushId: number | ((earlier: WriteResult[]) => number);
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
const UPDATE_DETAILS = 'UPDATE audit_entries SET details = ?, updated_at = ? WHERE id = ?';

type AuditRow = Record<'id' | 'push_id' | 'kind' | 'ip' | 'user_agent' | 'referrer' | 'details' | 'created_at' | 'updated_at', unknown>;

const toEntry = (row: AuditRow): AuditEntryEntity => ({
  id: Number(row.id),
  pushId: Number(row.push_id),
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

  /** The statement appending an entry, for the transaction of the change it records (see Sql.writeIf). */
  append(entry: NewAuditEntry): Statement {
    const rest = [entry.kind, entry.ip.slice(0, 45), entry.userAgent, entry.referrer, entry.details ?? null, entry.at, entry.at];
    const { pushId } = entry;
    return { sql: APPEND, parameters: typeof pushId === 'number' ? [pushId, ...rest] : (earlier) => [pushId(earlier), ...rest] };
  }

  async updateDetails(id: number, details: string, at: number): Promise<void> {
    await this.sql.write(UPDATE_DETAILS, [details, at, id]);
  }

  /** A page of a push's entries, oldest first (insertion order); plain SQL as the owner's list pages. */
  async pageForPush(pushId: number, offset: number, limit: number): Promise<AuditEntryEntity[]> {
    return (await this.sql.rows<AuditRow>(SELECT_PAGE, [pushId, limit, offset])).map(toEntry);
  }
}
