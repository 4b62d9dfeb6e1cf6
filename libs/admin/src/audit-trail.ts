import { Injectable } from '@nestjs/common';
import { AUDIT_KINDS, type AuditKind, AuditService, type InstanceLogEntry } from '@app/audit';
import { PeopleAdministration, SECURITY_EVENT_KINDS, type SecurityEvent, type SecurityEventKind, SecurityLog } from '@app/auth';
import { BadRequestError, DAY_MS } from '@app/common';
import { text } from '@app/pages';

/** Every kind an entry of the instance's log can have: what happened to pushes, and to people's accounts. */
export const TRAIL_KINDS: readonly string[] = [...AUDIT_KINDS, ...SECURITY_EVENT_KINDS];

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
 * Where a page starts in each of the two logs: below these ids (keyset); 0 once a log is read to
 * its end. Absent: from the newest.
 */
export interface TrailCursor {
  push?: number;
  account?: number;
}

/** One entry of the instance's log, as the page shows it and the exports write it. */
export interface TrailEntry {
  /** `push-<id>` or `account-<id>`: unique across the two logs. */
  id: string;
  at: string;
  source: 'push' | 'account';
  kind: string;
  /** The push's owner, or the account's address; null for an anonymous push. */
  person: string | null;
  push_id: number | null;
  /** The push's token, its first four characters only (never enough to open it). */
  push_token_start: string | null;
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

/**
 * The instance's one audit log for the administration: the pushes' entries (audit) and the
 * people's security events (auth), merged newest first. Each log is read by keyset on its primary
 * key (the cursor holds where each stopped), so page 1,000 costs what page 1 costs, and an export
 * walks the whole log a page at a time without holding it.
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
    const { kind, ownerId, from, to } = query;
    const pushKinds = kind === undefined ? undefined : (AUDIT_KINDS as readonly string[]).includes(kind) ? [kind as AuditKind] : null;
    const accountKinds = kind === undefined ? undefined : (SECURITY_EVENT_KINDS as readonly string[]).includes(kind) ? [kind as SecurityEventKind] : null;
    const [pushes, accounts] = await Promise.all([
      cursor.push === 0 || pushKinds === null ? [] : this.audit.instancePage({ before: cursor.push, limit: size, kinds: pushKinds, ownerId, from, to }),
      cursor.account === 0 || accountKinds === null ? [] : this.security.instancePage({ before: cursor.account, limit: size, kinds: accountKinds, userId: ownerId, from, to }),
    ]);
    // Merge the two newest-first lists; each log's ids grow with time, so each list is in time order too.
    const taken: ({ push: InstanceLogEntry } | { account: SecurityEvent })[] = [];
    let p = 0;
    let a = 0;
    while (taken.length < size && (p < pushes.length || a < accounts.length)) {
      const pushAt = p < pushes.length ? pushes[p].createdAt : -Infinity;
      const accountAt = a < accounts.length ? Date.parse(accounts[a].created_at) : -Infinity;
      taken.push(pushAt >= accountAt ? { push: pushes[p++] } : { account: accounts[a++] });
    }
    const pushDone = pushes.length < size && p === pushes.length;
    const accountDone = accounts.length < size && a === accounts.length;
    const next: TrailCursor = {
      push: pushDone || pushKinds === null ? 0 : p > 0 ? pushes[p - 1].id : cursor.push,
      account: accountDone || accountKinds === null ? 0 : a > 0 ? accounts[a - 1].id : cursor.account,
    };
    const owners = await this.people.emailsOf(pushes.slice(0, p).flatMap((entry) => (entry.ownerId === null ? [] : [entry.ownerId])));
    const entries = taken.map((entry) => ('push' in entry ? pushEntry(entry.push, owners) : accountEntry(entry.account)));
    return next.push === 0 && next.account === 0 ? { entries } : { entries, next };
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

function pushEntry(entry: InstanceLogEntry, owners: Map<number, string>): TrailEntry {
  const administrator = typeof entry.details?.admin === 'string' ? entry.details.admin : null;
  return {
    id: `push-${entry.id}`,
    at: new Date(entry.createdAt).toISOString(),
    source: 'push',
    kind: entry.kind,
    person: entry.ownerId === null ? null : (owners.get(entry.ownerId) ?? null),
    push_id: entry.pushId,
    push_token_start: entry.tokenStart,
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
    administrator,
    ip: event.ip,
    user_agent: event.user_agent,
    referrer: null,
    detail: event.detail,
  };
}
