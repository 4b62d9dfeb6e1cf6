import { ApiProperty } from '@nestjs/swagger';
import { AuditEntryResponse, AuditLogResponse } from '@app/audit';

/** v1's audit log: v2's entries under `views`. */
export class V1AuditLogResponse {
  @ApiProperty({ type: [AuditEntryResponse], description: 'Oldest first, 50 per page; [] past the end.' })
  views!: AuditEntryResponse[];
}

export const mapV1AuditLog = (log: AuditLogResponse): V1AuditLogResponse => ({ views: log.logs });
