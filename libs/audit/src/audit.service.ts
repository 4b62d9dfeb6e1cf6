import { Injectable } from '@nestjs/common';
import { ClientInfo, Clock } from '@app/common';
import { AuditKind } from './audit-entry.entity';
import { AuditRepository } from './audit.repository';

/** Records what happened to a push and who did it. */
@Injectable()
export class AuditService {
  constructor(
    private readonly repository: AuditRepository,
    private readonly clock: Clock,
  ) {}

  record(pushId: number, kind: AuditKind, client: ClientInfo): Promise<void> {
    return this.repository.append({ pushId, kind, ip: client.ip, userAgent: client.userAgent, referrer: client.referrer, at: this.clock.now() });
  }
}
