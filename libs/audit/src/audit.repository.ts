import { Injectable } from '@nestjs/common';
import { Sql } from '@app/database';
import { AuditEntryEntity, AuditKind } from './audit-entry.entity';

export interface NewAuditEntry {
  pushId: number;
  kind: AuditKind;
  ip: string;
  userAgent: string;
  referrer: string;
  at: number;
}

const APPEND = 'INSERT INTO audit_entries (push_id, kind, ip, user_agent, referrer, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)';
const SELECT_PAGE = 'SELECT id, push_id, kind, ip, user_agent, referrer, created_at, updated_at FROM audit_entries WHERE push_id = ? ORDER BY id ASC LIMIT ? OFFSET ?';

type AuditRow = Record<'id' | 'push_id' | 'kind' | 'ip' | 'user_agent' | 'referrer' | 'created_at' | 'updated_at', unknown>;

const toEntry = (row: AuditRow): AuditEntryEntity => ({
  id: Number(row.id),
  pushId: Number(row.push_id),
  kind: row.kind as AuditKind,
  ip: row.ip as string,
  userAgent: row.user_agent as string,
  referrer: row.referrer as string,
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

@Injectable()
export class AuditRepository {
  constructor(private readonly sql: Sql) {}

  /** Written on every retrieval, so plain SQL (see Sql). */
  async append(entry: NewAuditEntry): Promise<void> {
    await this.sql.write(APPEND, [entry.pushId, entry.kind, entry.ip.slice(0, 45), entry.userAgent, entry.referrer, entry.at, entry.at]);
  }

  /** A page of a push's entries, oldest first (insertion order); plain SQL as the owner's list pages. */
  async pageForPush(pushId: number, offset: number, limit: number): Promise<AuditEntryEntity[]> {
    return (await this.sql.rows<AuditRow>(SELECT_PAGE, [pushId, limit, offset])).map(toEntry);
  }
}
