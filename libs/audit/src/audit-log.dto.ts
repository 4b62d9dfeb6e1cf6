import type { AuditEntryEntity, AuditKind } from './audit-entry.entity';

export interface AuditEntryResponse {
  kind: AuditKind;
  ip: string;
  user_agent: string;
  referrer: string;
  created_at: string;
  updated_at: string;
}

export interface AuditLogResponse {
  logs: AuditEntryResponse[];
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
