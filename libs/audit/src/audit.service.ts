import { Injectable } from '@nestjs/common';
import { ClientInfo, Clock, PAGE_SIZE } from '@app/common';
import { Statement, WriteResult } from '@app/database';
import { AuditKind } from './audit-entry.entity';
import { AuditLogResponse, mapAuditEntry, NotifyByEmail } from './audit-log.dto';
import { AuditRepository } from './audit.repository';

/** Records what happened to a push and who did it, and reads the log back. */
@Injectable()
export class AuditService {
  constructor(
    private readonly repository: AuditRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * The statement recording an entry, for the transaction of the change it records (Sql.writeIf);
   * `pushId` may read the id of a push the same transaction inserts.
   */
  entry(pushId: number | ((earlier: WriteResult[]) => number), kind: AuditKind, client: ClientInfo, notifyByEmail?: NotifyByEmail): Statement {
    const details = notifyByEmail && JSON.stringify(notifyByEmail);
    return this.repository.append({ pushId, kind, ip: client.ip, userAgent: client.userAgent, referrer: client.referrer, at: this.clock.now(), details });
  }

  /** A link mail's progress, as its `creation_email_send` entry reports it. */
  reportEmailSend(entryId: number, notifyByEmail: NotifyByEmail): Promise<void> {
    return this.repository.updateDetails(entryId, JSON.stringify(notifyByEmail), this.clock.now());
  }

  async page(pushId: number, page: number): Promise<AuditLogResponse> {
    const entries = await this.repository.pageForPush(pushId, (page - 1) * PAGE_SIZE, PAGE_SIZE);
    return { logs: entries.map(mapAuditEntry) };
  }
}
