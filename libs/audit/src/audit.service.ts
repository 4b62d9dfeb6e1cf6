import { Injectable } from '@nestjs/common';
import { ClientInfo, Clock, PAGE_SIZE } from '@app/common';
import { InsertedId, Statement } from '@app/database';
import { AuditKind, RequestAuditKind } from './audit-entry.entity';
import { AuditLogResponse, mapAuditEntry, NotifyByEmail } from './audit-log.dto';
import { AuditRepository } from './audit.repository';
import { AuditStdout } from './audit-stdout';
import type { InstanceLogEntry, InstanceLogQuery, InstanceLogSource } from './instance-log';

/** Which administrator did it (an `expire` or `admin_view` entry): the actor of an administrative action. */
export interface AdministratorMark {
  admin: string;
}

/** An entry as PWP__AUDIT__STDOUT echoes it. */
interface EchoedEntry {
  source: InstanceLogSource;
  subjectId: number | InsertedId;
  kind: AuditKind | RequestAuditKind;
  at: number;
  client: ClientInfo;
  administrator: string | null;
  detail: Record<string, unknown> | null;
}

/** Records what happened to a push (or a secret request) and who did it, and reads the logs back. */
@Injectable()
export class AuditService {
  constructor(
    private readonly repository: AuditRepository,
    private readonly clock: Clock,
    private readonly stdout: AuditStdout,
  ) {}

  /**
   * The statement recording an entry, for the batch of the change it records (Sql.run); `pushId`
   * may be the id of a push the same batch inserts. It adds 1 to the batch's AUDIT_ENTRIES.
   */
  entry(pushId: number | InsertedId, kind: AuditKind, client: ClientInfo, details?: NotifyByEmail | AdministratorMark): Statement {
    const at = this.clock.now();
    const statement = this.repository.append({ pushId, kind, ip: client.ip, userAgent: client.userAgent, referrer: client.referrer, at, details: details && JSON.stringify(details) });
    const administrator = details && 'admin' in details ? details.admin : null;
    return this.echoed(statement, { source: 'push', subjectId: pushId, kind, at, client, administrator, detail: details && administrator === null ? { ...details } : null });
  }

  /** A link mail's progress, as its `creation_email_send` entry reports it. */
  reportEmailSend(entryId: number, notifyByEmail: NotifyByEmail): Promise<void> {
    return this.repository.updateDetails(entryId, JSON.stringify(notifyByEmail), this.clock.now());
  }

  /**
   * A page of every push's entries, or every secret request's, newest first, for the administration
   * (keyset: `before` is the previous page's last id of the same log).
   */
  instancePage(source: InstanceLogSource, query: InstanceLogQuery): Promise<InstanceLogEntry[]> {
    return this.repository.instancePage(source, query);
  }

  count(): Promise<number> {
    return this.repository.count();
  }

  /** The statement recording an entry of a secret request's log (`requestId` may be the id its batch inserts). */
  requestEntry(requestId: number | InsertedId, kind: RequestAuditKind, client: ClientInfo): Statement {
    const at = this.clock.now();
    const statement = this.repository.appendForRequest({ requestId, kind, ip: client.ip, userAgent: client.userAgent, referrer: client.referrer, at });
    return this.echoed(statement, { source: 'request', subjectId: requestId, kind, at, client, administrator: null, detail: null });
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

  /** With PWP__AUDIT__STDOUT, the statement that also writes its entry's line once the batch wrote it (the new subject's id known then). */
  private echoed(statement: Statement, entry: EchoedEntry): Statement {
    if (!this.stdout.enabled) return statement;
    const { source, subjectId, kind, at, client, administrator, detail } = entry;
    return {
      ...statement,
      written: (batch) => {
        const id = typeof subjectId === 'number' ? subjectId : batch.idOf(subjectId);
        this.stdout.write({
          source,
          kind,
          at: new Date(at).toISOString(),
          push_id: source === 'push' ? id : null,
          request_id: source === 'request' ? id : null,
          user_id: null,
          email: null,
          administrator,
          ip: client.ip,
          user_agent: client.userAgent,
          referrer: client.referrer,
          detail,
        });
      },
    };
  }
}
