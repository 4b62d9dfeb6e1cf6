import { Injectable } from '@nestjs/common';
import { AUDIT_KINDS, type AuditKind, AuditService, type InstanceLogEntry, type InstanceLogQuery, REQUEST_AUDIT_KINDS } from '@app/audit';
import { PeopleAdministration, SECURITY_EVENT_KINDS, type SecurityEvent, type SecurityEventKind, SecurityLog } from '@app/auth';
import { BadRequestError, DAY_MS } from '@app/common';
import { text } from '@app/pages';

/** The instance's three logs, in the order a page takes entries of one instant: pushes', secret requests', people's accounts'. */
const TRAIL_SOURCES = ['push', 'request', 'account'] as const;
type TrailSource = (typeof TRAIL_SOURCES)[number];
const KINDS_OF: Record<TrailSource, readonly string[]> = { push: AUDIT_KINDS, request: REQUEST_AUDIT_KINDS, account: SECURITY_EVENT_KINDS };

/** Every kind an entry of the instance's log can have: what happened to pushes, to secret requests, and to people's accounts. */
export const TRAIL_KINDS: readonly string[] = [...new Set(TRAIL_SOURCES.flatMap((source) => KINDS_OF[source]))];

/** The filters of the audit page and its exports, as given. */
export interface TrailFilter {
  /** A person's address: their pushes' entries and their account's. */
  person?: string;
  kind?: string;
  /** YYYY-MM-DD, UTC, inclusive. */
  from?: string;
  to?: string;
}

/**
 * Where a page starts in each of the three logs: below these ids (keyset); 0 once a log is read to
 * its end. Absent: from the newest.
 */
export type TrailCursor = Partial<Record<TrailSource, number>>;

/** One entry of the instance's log, as the page shows it and the exports write it. */
export interface TrailEntry {
  /** `push-<id>`, `request-<id>` or `account-<id>`: unique across the three logs. */
  id: string;
  at: string;
  source: TrailSource;
  kind: string;
  /** The push's (request's) owner, or the account's address; null for an anonymous push. */
  person: string | null;
  push_id: number | null;
  /** The push's token, its first four characters only (never enough to open it). */
  push_token_start: string | null;
  request_id: number | null;
  /** The secret request's token, its first four characters only. */
  request_token_start: string | null;
  /** The administrator who did it, for administrative actions. */
  administrator: string | null;
  ip: string | null;
  user_agent: string | null;
  referrer: string | null;
  /** Small facts beside the entry (a link mail's recipients and progress, a sign-in's method); never a secret. */
  detail: Record<string, unknown> | null;
}

export interface TrailPage {
  entries: TrailEntry[];
  next?: TrailCursor;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** An entry of one of the logs, before it is merged. */
type LogRow = { source: 'push' | 'request'; entry: InstanceLogEntry } | { source: 'account'; entry: SecurityEvent };

/**
 * The instance's one audit log for the administration: the pushes' and the secret requests'
 * entries (audit) and the people's security events (auth), merged newest first. Each log is read
 * by keyset on its primary key (the cursor holds where each stopped), so page 1,000 costs what
 * page 1 costs, and an export walks the whole log a page at a time without holding it.
 */
@Injectable()
export class AuditTrail {
  constructor(
    private readonly audit: AuditService,
    private readonly security: SecurityLog,
    private readonly people: PeopleAdministration,
  ) {}

  /** `size` entries from `cursor` on, newest first, and where the next page starts (absent: this was the last). */
  async page(filter: TrailFilter, cursor: TrailCursor, size: number): Promise<TrailPage> {
    const query = await this.queryOf(filter);
    if (query === null) return { entries: [] };
    const { kind, ...rest } = query;
    const logs = await Promise.all(
      TRAIL_SOURCES.map(async (source) => {
        const kinds = kind === undefined ? undefined : KINDS_OF[source].includes(kind) ? [kind] : null;
        const rows = cursor[source] === 0 || kinds === null ? [] : await this.read(source, { ...rest, before: cursor[source], limit: size, kinds });
        return { source, rows, done: rows.length < size, taken: 0 };
      }),
    );
    // Merge the newest-first lists; each log's ids grow with time, so each list is in time order too.
    const taken: LogRow[] = [];
    while (taken.length < size) {
      let newest: (typeof logs)[number] | undefined;
      for (const log of logs) if (log.taken < log.rows.length && (!newest || atOf(log.rows[log.taken]) > atOf(newest.rows[newest.taken]))) newest = log;
      if (!newest) break;
      taken.push(newest.rows[newest.taken++]);
    }
    const next = Object.fromEntries(
      logs.map((log) => [log.source, log.done && log.taken === log.rows.length ? 0 : log.taken > 0 ? log.rows[log.taken - 1].entry.id : cursor[log.source]]),
    ) as TrailCursor;
    const owners = await this.people.emailsOf(taken.flatMap((row) => (row.source === 'account' || row.entry.ownerId === null ? [] : [row.entry.ownerId])));
    const entries = taken.map((row) => (row.source === 'account' ? accountEntry(row.entry) : logEntry(row.entry, owners)));
    return TRAIL_SOURCES.every((source) => next[source] === 0) ? { entries } : { entries, next };
  }

  /** A page of one log, its rows marked with it. */
  private async read(source: TrailSource, query: Omit<InstanceLogQuery, 'kinds'> & { kinds?: string[] }): Promise<LogRow[]> {
    if (source === 'account') {
      const { ownerId, kinds, ...rest } = query;
      return (await this.security.instancePage({ ...rest, userId: ownerId, kinds: kinds as SecurityEventKind[] | undefined })).map((entry) => ({ source, entry }));
    }
    return (await this.audit.instancePage(source, { ...query, kinds: query.kinds as AuditKind[] | undefined })).map((entry) => ({ source, entry }));
  }

  /**
   * The whole log under the filter, a page at a time (an export: nothing but one page is held).
   * The filter is checked before anything is read, so a bad one is refused before an export starts.
   */
  async walk(filter: TrailFilter, size = 500): Promise<AsyncGenerator<TrailEntry[]>> {
    await this.queryOf(filter);
    return this.pages(filter, size);
  }

  private async *pages(filter: TrailFilter, size: number): AsyncGenerator<TrailEntry[]> {
    let cursor: TrailCursor | undefined = {};
    while (cursor) {
      const page: TrailPage = await this.page(filter, cursor, size);
      if (page.entries.length > 0) yield page.entries;
      cursor = page.next;
    }
  }

  /** The filters as the logs' queries take them; null when they can match nothing (an unknown person). */
  private async queryOf(filter: TrailFilter): Promise<{ kind?: string; ownerId?: number; from?: number; to?: number } | null> {
    const kind = filter.kind || undefined;
    if (kind !== undefined && !TRAIL_KINDS.includes(kind)) throw new BadRequestError(text('admin.audit.badKind'));
    const from = dayStart(filter.from);
    const to = dayStart(filter.to);
    let ownerId: number | undefined;
    if (filter.person) {
      const person = await this.people.findByEmail(filter.person);
      if (!person) return null;
      ownerId = person.id;
    }
    return { kind, ownerId, from, to: to === undefined ? undefined : to + DAY_MS };
  }
}

function dayStart(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const at = DATE.test(value) ? Date.parse(`${value}T00:00:00Z`) : NaN;
  if (Number.isNaN(at)) throw new BadRequestError(text('admin.audit.badDate'));
  return at;
}

const atOf = (row: LogRow): number => (row.source === 'account' ? Date.parse(row.entry.created_at) : row.entry.createdAt);

/** An entry of a push's log or of a request's: the subject named in its own columns. */
function logEntry(entry: InstanceLogEntry, owners: Map<number, string>): TrailEntry {
  const administrator = typeof entry.details?.admin === 'string' ? entry.details.admin : null;
  const push = entry.source === 'push';
  return {
    id: `${entry.source}-${entry.id}`,
    at: new Date(entry.createdAt).toISOString(),
    source: entry.source,
    kind: entry.kind,
    person: entry.ownerId === null ? null : (owners.get(entry.ownerId) ?? null),
    push_id: push ? entry.subjectId : null,
    push_token_start: push ? entry.tokenStart : null,
    request_id: push ? null : entry.subjectId,
    request_token_start: push ? null : entry.tokenStart,
    administrator,
    ip: entry.ip,
    user_agent: entry.userAgent,
    referrer: entry.referrer,
    detail: administrator === null ? entry.details : null,
  };
}

function accountEntry(event: SecurityEvent): TrailEntry {
  const administrator = event.detail?.by === 'admin' && typeof event.detail.admin === 'string' ? event.detail.admin : null;
  return {
    id: `account-${event.id}`,
    at: event.created_at,
    source: 'account',
    kind: event.kind,
    person: event.email,
    push_id: null,
    push_token_start: null,
    request_id: null,
    request_token_start: null,
    administrator,
    ip: event.ip,
    user_agent: event.user_agent,
    referrer: null,
    detail: event.detail,
  };
}
