import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AuditEntryEntity, AuditKind } from './audit-entry.entity';

export interface NewAuditEntry {
  pushId: number;
  kind: AuditKind;
  ip: string;
  userAgent: string;
  referrer: string;
  at: number;
}

@Injectable()
export class AuditRepository {
  constructor(@InjectRepository(AuditEntryEntity) private readonly entries: Repository<AuditEntryEntity>) {}

  async append(entry: NewAuditEntry): Promise<void> {
    await this.entries.insert({
      pushId: entry.pushId,
      kind: entry.kind,
      ip: entry.ip.slice(0, 45),
      userAgent: entry.userAgent,
      referrer: entry.referrer,
      createdAt: entry.at,
      updatedAt: entry.at,
    });
  }

  /** A page of a push's entries, oldest first (insertion order). */
  pageForPush(pushId: number, offset: number, limit: number): Promise<AuditEntryEntity[]> {
    return this.entries.find({ where: { pushId }, order: { id: 'ASC' }, skip: offset, take: limit });
  }
}
