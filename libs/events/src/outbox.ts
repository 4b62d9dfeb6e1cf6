import { Injectable } from '@nestjs/common';
import { DAY_MS } from '@app/common';
import { randomToken } from '@app/crypto';
import { InsertedId, Sql, Statement, total } from '@app/database';
import { AccountMail, LinkMail, PushEvent, PushEventData, PushEventType } from './events';

const INSERT = 'INSERT INTO outbox (type, user_id, payload, email_count, created_at) VALUES (?, ?, ?, ?, ?)';
const NEW_QUOTA = 'INSERT INTO email_quotas (user_id, utc_day, emails) VALUES (?, 0, 0)';
const EMAILS_ON = 'SELECT utc_day, emails FROM email_quotas WHERE user_id = ?';
/**
 * Adds `n` recipients to the user's count of the day, or changes nothing when that would pass the
 * limit; a row of an earlier day starts again from 0. The row lock the UPDATE takes orders
 * concurrent requests, and each re-checks the condition on the count the previous one left.
 * `emails` is assigned before `utc_day`: MySQL evaluates SET left to right, on values already set.
 */
const COUNT_EMAILS =
  'UPDATE email_quotas SET emails = CASE WHEN utc_day = ? THEN emails + ? ELSE ? END, utc_day = ? ' +
  'WHERE user_id = ? AND (CASE WHEN utc_day = ? THEN emails ELSE 0 END) + ? <= ?';

/** What a link mail adds to its batch's totals: its recipients, whom the limits count. */
export const LINK_MAIL_RECIPIENTS = 'link_mail_recipients';

/**
 * The outbox's one port: each method gives the statement that records an event, for the caller to
 * run in the batch of the change the event tells of (Sql.run). Nothing is sent here; the
 * notifications worker drains the outbox.
 */
@Injectable()
export class Outbox {
  constructor(private readonly sql: Sql) {}

  /** Makes the user's counter of link-mail recipients, once: countEmails needs it to exist. */
  prepareEmailCount(userId: number): Promise<void> {
    return this.sql.insertUnlessExists(NEW_QUOTA, [userId]);
  }

  /**
   * A guard of a link mail's batch: counts the recipients its mails add (LINK_MAIL_RECIPIENTS)
   * against the user's `dailyLimit` for the UTC day of `at`, or undoes the batch when they do not fit.
   */
  countEmails(userId: number, dailyLimit: number, at: number): Statement {
    const day = utcDay(at);
    const count = total(LINK_MAIL_RECIPIENTS);
    return { sql: COUNT_EMAILS, parameters: [day, count, count, day, userId, day, count, dailyLimit], guard: true };
  }

  /** How many recipients the user's link mails have named on the UTC day of `at`. */
  async emailsCountedOn(userId: number, at: number): Promise<number> {
    const [row] = await this.sql.rows<{ utc_day: unknown; emails: unknown }>(EMAILS_ON, [userId]);
    return row !== undefined && Number(row.utc_day) === utcDay(at) ? Number(row.emails) : 0;
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
   * A mail of a push's (or request's) link to the recipients its owner named; it adds them to the
   * batch's LINK_MAIL_RECIPIENTS. The audit entry reporting it, if any, is inserted earlier in the same batch.
   */
  linkMail(ownerId: number, mail: Omit<LinkMail, 'id' | 'type' | 'timestamp' | 'audit_entry_id'>, auditEntryId: InsertedId | undefined, at: number): Statement {
    const message = { id: messageId(), type: 'push.link_mail' as const, timestamp: new Date(at).toISOString() };
    const payloadOf = (id: number | null) => JSON.stringify({ ...message, audit_entry_id: id, ...mail } satisfies LinkMail);
    const payload = auditEntryId === undefined ? payloadOf(null) : auditEntryId.map(payloadOf);
    return { sql: INSERT, atomic: true, parameters: [message.type, ownerId, payload, mail.recipients.length, at], adds: { [LINK_MAIL_RECIPIENTS]: mail.recipients.length } };
  }
}

const utcDay = (at: number): number => Math.floor(at / DAY_MS);

/** Random and stable across retries: receivers deduplicate by it. */
function messageId(): string {
  return `msg_${randomToken(16)}`;
}
