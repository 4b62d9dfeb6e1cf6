import { Injectable } from '@nestjs/common';
import { InjectSettings, type Settings } from '@app/config';

/** One audit event as PWP__AUDIT__STDOUT writes it: the fields of docs/administration.md. */
export interface AuditLine {
  /**
   * `push`: what happened to a push (its audit log); `request`: to a secret request (its log);
   * `account`: what happened to a person's account (their security log).
   */
  source: 'push' | 'request' | 'account';
  kind: string;
  at: string;
  push_id: number | null;
  request_id: number | null;
  user_id: number | null;
  email: string | null;
  administrator: string | null;
  ip: string | null;
  user_agent: string | null;
  referrer: string | null;
  detail: Record<string, unknown> | null;
}

/**
 * PWP__AUDIT__STDOUT: each audit entry and security event, once written, as one JSON line on
 * standard output (`{"audit": {...}}`), beside the service's logs, so a log shipper takes the
 * trail to a SIEM with nothing else to run. Never a payload, passphrase, note, name or token:
 * an entry holds none.
 */
@Injectable()
export class AuditStdout {
  readonly enabled: boolean;

  constructor(@InjectSettings() settings: Settings) {
    this.enabled = settings.auditStdout;
  }

  write(line: AuditLine): void {
    if (this.enabled) process.stdout.write(`${JSON.stringify({ audit: line })}\n`);
  }
}
