import type { AuditKind, RequestAuditKind } from './audit-entry.entity';

/** The two logs of the instance's audit entries: the pushes' (audit_entries) and the secret requests' (request_audit_entries). */
export type InstanceLogSource = 'push' | 'request';

/** What the administration asks of one of the instance's logs: a keyset page, newest first, filtered. */
export interface InstanceLogQuery {
  /** Entries older than this id (the previous page's last); absent: from the newest. */
  before?: number;
  limit: number;
  kinds?: (AuditKind | RequestAuditKind)[];
  /** Only entries of pushes (requests) this person owns. */
  ownerId?: number;
  /** Only entries at or after this instant (ms). */
  from?: number;
  /** Only entries before this instant (ms). */
  to?: number;
}

/** An entry of the instance's log of pushes or of requests: never a payload, message, answer, note, name or full token. */
export interface InstanceLogEntry {
  id: number;
  source: InstanceLogSource;
  /** The push's id, or the request's. */
  subjectId: number;
  /** The push's (request's) token, its first four characters only. */
  tokenStart: string;
  ownerId: number | null;
  kind: AuditKind | RequestAuditKind;
  ip: string;
  userAgent: string;
  referrer: string;
  details: Record<string, unknown> | null;
  createdAt: number;
}

/** Where each log lives: its table, the column naming its subject, and the subjects' table. A request's entries have no details. */
const LOGS = {
  push: { entries: 'audit_entries', subject: 'push_id', details: 'a.details', subjects: 'pushes' },
  request: { entries: 'request_audit_entries', subject: 'request_id', details: 'NULL AS details', subjects: 'requests' },
} as const satisfies Record<InstanceLogSource, Record<string, string>>;

/**
 * The statement of a page of one of the instance's logs: by the primary key, newest first, so a
 * page deep in the log (`before` = the previous page's last id) reads as few rows as the first one.
 * Exported for the query-plan test, which checks exactly what runs.
 */
export function instanceLogStatement(query: InstanceLogQuery, source: InstanceLogSource = 'push'): { sql: string; parameters: unknown[] } {
  const log = LOGS[source];
  const where: string[] = [];
  const parameters: unknown[] = [];
  const add = (condition: string, ...values: unknown[]) => {
    where.push(condition);
    parameters.push(...values);
  };
  if (query.before !== undefined) add('a.id < ?', query.before);
  if (query.kinds?.length) add(`a.kind IN (${query.kinds.map(() => '?').join(', ')})`, ...query.kinds);
  if (query.ownerId !== undefined) add(`a.${log.subject} IN (SELECT id FROM ${log.subjects} WHERE user_id = ?)`, query.ownerId);
  if (query.from !== undefined) add('a.created_at >= ?', query.from);
  if (query.to !== undefined) add('a.created_at < ?', query.to);
  // One table, no join: a join lets MySQL's optimiser start from pushes and sort, on every page.
  const sql =
    `SELECT a.id, a.${log.subject} AS subject_id, a.kind, a.ip, a.user_agent, a.referrer, ${log.details}, a.created_at FROM ${log.entries} a` +
    `${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY a.id DESC LIMIT ?`;
  return { sql, parameters: [...parameters, query.limit] };
}

/** What an entry shows of its push (request): its owner and its token's first four characters; read for a page's subjects at once. */
export const SUBJECTS_OF_ENTRIES = (source: InstanceLogSource, count: number) =>
  `SELECT id, user_id, SUBSTR(url_token, 1, 4) AS token_start FROM ${LOGS[source].subjects} WHERE id IN (${Array(count).fill('?').join(', ')})`;

export function toInstanceLogEntry(source: InstanceLogSource, row: Record<string, unknown>, subject: Record<string, unknown> | undefined): InstanceLogEntry {
  return {
    id: Number(row.id),
    source,
    subjectId: Number(row.subject_id),
    tokenStart: (subject?.token_start as string | undefined) ?? '',
    ownerId: subject === undefined || subject.user_id === null ? null : Number(subject.user_id),
    kind: row.kind as AuditKind,
    ip: row.ip as string,
    userAgent: row.user_agent as string,
    referrer: row.referrer as string,
    details: row.details === null || row.details === undefined ? null : (JSON.parse(row.details as string) as Record<string, unknown>),
    createdAt: Number(row.created_at),
  };
}
