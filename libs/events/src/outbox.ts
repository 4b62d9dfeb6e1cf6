import { Injectable } from '@nestjs/common';
import { randomToken } from '@app/crypto';
import { Sql, Statement, WriteResult } from '@app/database';
import { AccountMail, LinkMail, PushEvent, PushEventData, PushEventType } from './events';

const INSERT = 'INSERT INTO outbox (type, user_id, payload, email_count, created_at) VALUES (?, ?, ?, ?, ?)';
const EMAILS_SINCE = 'SELECT COALESCE(SUM(email_count), 0) AS sent FROM outbox WHERE user_id = ? AND created_at >= ?';

/**
 * The outbox's one port: each method gives the statement that records an event, for the caller to
 * run in the transaction of the change the event tells of (Sql.writeIf). Nothing is sent here;
 * the notifications worker drains the outbox.
 */
@Injectable()
export class Outbox {
  constructor(private readonly sql: Sql) {}

  /** How many addresses the user's link mails have named since `since` (their daily limit counts these). */
  async emailsSentSince(userId: number, since: number): Promise<number> {
    const [row] = await this.sql.rows<{ sent: unknown }>(EMAILS_SINCE, [userId, since]);
    return Number(row?.sent ?? 0);
  }

  /** A mail to a person about their account; it never counts against the daily limit of link mails. */
  accountMail(userId: number, mail: Omit<AccountMail, 'id' | 'type' | 'timestamp'>, at: number): Statement {
    const payload: AccountMail = { id: messageId(), type: 'account.mail', timestamp: new Date(at).toISOString(), ...mail };
    return { sql: INSERT, parameters: [payload.type, userId, JSON.stringify(payload), 0, at], atomic: true };
  }

  /** A push event for its owner's endpoints. */
  pushEvent(type: PushEventType, ownerId: number, data: PushEventData, at: number): Statement {
    const event: PushEvent = { id: messageId(), type, timestamp: new Date(at).toISOString(), data };
    return { sql: INSERT, parameters: [type, ownerId, JSON.stringify(event), 0, at], atomic: true };
  }

  /**
   * A mail of a push's link to the recipients its owner named. The audit entry reporting it is
   * written by an earlier statement of the same transaction: `auditEntryId` reads its id.
   */
  linkMail(ownerId: number, mail: Omit<LinkMail, 'id' | 'type' | 'timestamp' | 'audit_entry_id'>, auditEntryId: (earlier: WriteResult[]) => number, at: number): Statement {
    return {
      sql: INSERT,
      atomic: true,
      parameters: (earlier) => {
        const payload: LinkMail = { id: messageId(), type: 'push.link_mail', timestamp: new Date(at).toISOString(), audit_entry_id: auditEntryId(earlier), ...mail };
        return [payload.type, ownerId, JSON.stringify(payload), mail.recipients.length, at];
      },
    };
  }
}

/** Random and stable across retries: receivers deduplicate by it. */
function messageId(): string {
  return `msg_${randomToken(16)}`;
}
