import { Injectable } from '@nestjs/common';
import { ClientInfo, Clock, PAGE_SIZE } from '@app/common';
import { InsertedId, Statement } from '@app/database';
import { AuditKind, RequestAuditKind } from './audit-entry.entity';
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
   * The statement recording an entry, for the batch of the change it records (Sql.run); `pushId`
   * may be the id of a push the same batch inserts. It adds 1 to the batch's AUDIT_ENTRIES.
   */
  entry(pushId: number | InsertedId, kind: AuditKind, client: ClientInfo, notifyByEmail?: NotifyByEmail): Statement {
    const details = notifyByEmail && JSON.stringify(notifyByEmail);
    return this.repository.append({ pushId, kind, ip: client.ip, userAgent: client.userAgent, referrer: client.referrer, at: this.clock.now(), details });
  }

  /** A link mail's progress, as its `creation_email_send` entry reports it. */
  reportEmailSend(entryId: number, notifyByEmail: NotifyByEmail): Promise<void> {
    return this.repository.updateDetails(entryId, JSON.stringify(notifyByEmail), this.clock.now());
  }

  /** The statement recording an entry of a secret request's log (`requestId` may be the id its batch inserts). */
  requestEntry(requestId: number | InsertedId, kind: RequestAuditKind, client: ClientInfo): Statement {
    return this.repository.appendForRequest({ requestId, kind, ip: client.ip, userAgent: client.userAgent, referrer: client.referrer, at: this.clock.now() });
  }

  /** A page of a secret request's log, in the same shape as a push's. */
  async requestPage(requestId: number, page: number): Promise<AuditLogResponse> {
    const entries = await this.repository.pageForRequest(requestId, (page - 1) * PAGE_SIZE, PAGE_SIZE);
    return { logs: entries.map(mapAuditEntry) };
  }

  async page(pushId: number, page: number): Promise<AuditLogResponse> {
    const entries = await this.repository.pageForPush(pushId, (page - 1) * PAGE_SIZE, PAGE_SIZE);
    return { logs: entries.map(mapAuditEntry) };
  }
}
