import { ApiProperty } from '@nestjs/swagger';
import { AUDIT_KINDS, type AuditEntryEntity, type AuditKind } from './audit-entry.entity';

const TIME_EXAMPLE = '2026-01-01T01:00:00.000Z';

export class AuditEntryResponse {
  @ApiProperty({
    type: String,
    enum: AUDIT_KINDS,
    description:
      'creation; view (a counted retrieval); owner_view (the owner retrieving, not counted); failed_view (a retrieval of an expired push); failed_passphrase; expire (a deletion).',
    example: 'view',
  })
  kind!: AuditKind;

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
  };
}
