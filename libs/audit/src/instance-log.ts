import type { AuditKind } from './audit-entry.entity';

/** What the administration asks of the instance's log of pushes: a keyset page, newest first, filtered. */
export interface InstanceLogQuery {
  /** Entries older than this id (the previous page's last); absent: from the newest. */
  before?: number;
  limit: number;
  kinds?: AuditKind[];
  /** Only entries of pushes this person owns. */
  ownerId?: number;
  /** Only entries at or after this instant (ms). */
  from?: number;
  /** Only entries before this instant (ms). */
  to?: number;
}

/** An entry of the instance's log of pushes: never a payload, note, name or full token. */
export interface InstanceLogEntry {
  id: number;
  pushId: number;
  /** The push's token, its first four characters only. */
  tokenStart: string;
  ownerId: number | null;
  kind: AuditKind;
  ip: string;
  userAgent: string;
  referrer: string;
  details: Record<string, unknown> | null;
  createdAt: number;
}

/**
 * The statement of a page of the instance's log: by the primary key, newest first, so a page
 * deep in the log (`before` = the previous page's last id) reads as few rows as the first one.
 * Exported for the query-plan test, which checks exactly what runs.
 */
export function instanceLogStatement(query: InstanceLogQuery): { sql: string; parameters: unknown[] } {
  const where: string[] = [];
  const parameters: unknown[] = [];
  const add = (condition: string, ...values: unknown[]) => {
    where.push(condition);
    parameters.push(...values);
  };
  if (query.before !== undefined) add('a.id < ?', query.before);
  if (query.kinds?.length) add(`a.kind IN (${query.kinds.map(() => '?').join(', ')})`, ...query.kinds);
  if (query.ownerId !== undefined) add('a.push_id IN (SELECT id FROM pushes WHERE user_id = ?)', query.ownerId);
  if (query.from !== undefined) add('a.created_at >= ?', query.from);
  if (query.to !== undefined) add('a.created_at < ?', query.to);
  // One table, no join: a join lets MySQL's optimiser start from pushes and sort, on every page.
  const sql = `SELECT a.id, a.push_id, a.kind, a.ip, a.user_agent, a.referrer, a.details, a.created_at FROM audit_entries a${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY a.id DESC LIMIT ?`;
  return { sql, parameters: [...parameters, query.limit] };
}

/** What an entry shows of its push: its owner and its token's first four characters; read for a page's pushes at once. */
export const PUSHES_OF_ENTRIES = (count: number) => `SELECT id, user_id, SUBSTR(url_token, 1, 4) AS token_start FROM pushes WHERE id IN (${Array(count).fill('?').join(', ')})`;

export function toInstanceLogEntry(row: Record<string, unknown>, push: Record<string, unknown> | undefined): InstanceLogEntry {
  return {
    id: Number(row.id),
    pushId: Number(row.push_id),
    tokenStart: (push?.token_start as string | undefined) ?? '',
    ownerId: push === undefined || push.user_id === null ? null : Number(push.user_id),
    kind: row.kind as AuditKind,
    ip: row.ip as string,
    userAgent: row.user_agent as string,
    referrer: row.referrer as string,
    details: row.details === null ? null : (JSON.parse(row.details as string) as Record<string, unknown>),
    createdAt: Number(row.created_at),
  };
}
