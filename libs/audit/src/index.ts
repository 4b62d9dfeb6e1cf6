/** Audit log: what happened to each push (and each secret request), when, and from which client. */
export * from './audit.module';
export * from './audit.service';
export { AUDIT_ENTRIES } from './audit.repository';
export { AuditEntryResponse, AuditLogResponse, type EmailSendStatus, NotifyByEmail } from './audit-log.dto';
export { AuditEntryEntity, AUDIT_KINDS, type AuditKind, REQUEST_AUDIT_KINDS, type RequestAuditKind } from './audit-entry.entity';
export { RequestAuditEntryEntity } from './request-audit-entry.entity';
export { instanceLogStatement, type InstanceLogEntry, type InstanceLogQuery, type InstanceLogSource } from './instance-log';
export type { AdministratorMark } from './audit.service';
export { AuditStdout, type AuditLine } from './audit-stdout';
