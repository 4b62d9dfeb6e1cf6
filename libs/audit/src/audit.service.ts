import { Injectable } from '@nestjs/common';
import { ClientInfo, Clock, PAGE_SIZE } from '@app/common';
import { AuditKind } from './audit-entry.entity';
import { AuditLogResponse, mapAuditEntry } from './audit-log.dto';
import { AuditRepository } from './audit.repository';

/** Records what happened to a push and who did it, and reads the log back. */
@Injectable()
export class AuditService {
  constructor(
    private readonly repository: AuditRepository,
    private readonly clock: Clock,
  ) {}

  record(pushId: number, kind: AuditKind, client: ClientInfo): Promise<void> {
    return this.repository.append({ pushId, kind, ip: client.ip, userAgent: client.userAgent, referrer: client.referrer, at: this.clock.now() });
  }

  async page(pushId: number, page: number): Promise<AuditLogResponse> {
    const entries = await this.repository.pageForPush(pushId, (page - 1) * PAGE_SIZE, PAGE_SIZE);
    return { logs: entries.map(mapAuditEntry) };
  }
}
