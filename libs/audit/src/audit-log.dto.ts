import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { AUDIT_KINDS, type AuditEntryEntity, type AuditKind, REQUEST_AUDIT_KINDS, type RequestAuditKind } from './audit-entry.entity';

const TIME_EXAMPLE = '2026-01-01T01:00:00.000Z';

export const EMAIL_SEND_STATUSES = ['pending', 'processing', 'completed', 'partially_failed', 'failed'] as const;
export type EmailSendStatus = (typeof EMAIL_SEND_STATUSES)[number];

/** A link mail to the recipients a push's owner named, as the reference reports it. */
export class NotifyByEmail {
  @ApiProperty({ type: String, description: 'The recipients, comma-separated.', example: 'alice@example.com,bob@example.com' })
  recipients!: string;

  @ApiProperty({ type: String, nullable: true, description: 'The language asked for (notify_emails_to_locale), or null.', example: 'de' })
  locale!: string | null;

  @ApiProperty({ type: String, enum: EMAIL_SEND_STATUSES, example: 'completed' })
  status!: EmailSendStatus;

  @ApiPropertyOptional({ type: String, description: 'Why some or all could not be sent; absent when all were.', example: 'Some emails could not be sent.' })
  error_message?: string;

  @ApiProperty({ type: String, description: 'The recipients sent to so far, comma-separated.', example: 'alice@example.com' })
  successful_sends!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the sending ended; null until then.', example: TIME_EXAMPLE })
  proceed_at!: string | null;
}

export class AuditEntryResponse {
  @ApiProperty({
    type: String,
    enum: [...new Set([...AUDIT_KINDS, ...REQUEST_AUDIT_KINDS])],
    description:
      'creation; view (a counted retrieval; of a secret request: the responder opened its page); owner_view (the owner retrieving, not counted); admin_view (an administrator retrieving, not counted); failed_view (a retrieval of an expired push); failed_passphrase; expire (a deletion; of a request: closed by its owner); file_download; creation_email_send (the link mailed to recipients: see notify_by_email); response (a request answered) and response_view (its owner reading the answer).',
    example: 'view',
  })
  kind!: AuditKind | RequestAuditKind;

  @ApiProperty({
    type: String,
    description: "The client's address (from X-Forwarded-For only behind a trusted proxy).",
    example: '203.0.113.9',
  })
  ip!: string;

  @ApiProperty({
    type: String,
    maxLength: 255,
    description: 'The User-Agent header, cut to 255 characters; "" when absent.',
    example: 'curl/8.5.0',
  })
  user_agent!: string;

  @ApiProperty({ type: String, maxLength: 255, description: 'The Referer header, cut to 255 characters; "" when absent.', example: '' })
  referrer!: string;

  @ApiProperty({ type: String, format: 'date-time', example: TIME_EXAMPLE })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time', example: TIME_EXAMPLE })
  updated_at!: string;

  @ApiPropertyOptional({ type: NotifyByEmail, description: 'creation_email_send only: the mail and how its sending went.' })
  notify_by_email?: NotifyByEmail;
}

export class AuditLogResponse {
  @ApiProperty({ type: [AuditEntryResponse], description: 'Oldest first, 50 per page; [] past the end.' })
  logs!: AuditEntryResponse[];
}

export function mapAuditEntry(entry: AuditEntryEntity): AuditEntryResponse {
  return {
    kind: entry.kind,
    ip: entry.ip,
    user_agent: entry.userAgent,
    referrer: entry.referrer,
    created_at: new Date(entry.createdAt).toISOString(),
    updated_at: new Date(entry.updatedAt).toISOString(),
    ...(entry.details === null || entry.kind !== 'creation_email_send' ? {} : { notify_by_email: JSON.parse(entry.details) as NotifyByEmail }),
  };
}
