import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
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

@Injectable()
export class AuditRepository {
  constructor(
    @InjectRepository(AuditEntryEntity) private readonly entries: Repository<AuditEntryEntity>,
    private readonly sql: Sql,
  ) {}

  /** Written on every retrieval, so plain SQL (see Sql). */
  async append(entry: NewAuditEntry): Promise<void> {
    await this.sql.write(APPEND, [entry.pushId, entry.kind, entry.ip.slice(0, 45), entry.userAgent, entry.referrer, entry.at, entry.at]);
  }

  /** A page of a push's entries, oldest first (insertion order). */
  pageForPush(pushId: number, offset: number, limit: number): Promise<AuditEntryEntity[]> {
    return this.entries.find({ where: { pushId }, order: { id: 'ASC' }, skip: offset, take: limit });
  }
}
