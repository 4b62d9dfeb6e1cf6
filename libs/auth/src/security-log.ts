import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, In, LessThan, Repository } from 'typeorm';
import { Clock } from '@app/common';
import { AuditStdout } from '@app/audit';
import { Sql, type Statement } from '@app/database';
import { SecurityEventEntity } from './security-event.entity';

/** What goes into a person's security log. */
export const SECURITY_EVENT_KINDS = [
  'account_created',
  'account_deleted',
  'sign_in',
  'sign_in_failed',
  'sign_out',
  'locked',
  'unlocked',
  'password_changed',
  'password_reset_requested',
  'email_changed',
  'email_confirmed',
  'two_factor_enabled',
  'two_factor_disabled',
  'two_factor_failed',
  'recovery_code_used',
  'recovery_codes_generated',
  'admin_granted',
  'admin_revoked',
  'account_disabled',
  'account_enabled',
  'audit_exported',
  'custom_css_saved',
] as const;
export type SecurityEventKind = (typeof SECURITY_EVENT_KINDS)[number];

/** Small facts beside an event (the sign-in method, a new address); never a password, token or code. */
export type SecurityEventDetail = Record<string, string | number | boolean | null>;

/** An event to record: whose, what, from where. */
export interface SecurityEventInput {
  userId: number;
  /** The person's address now (kept with the entry, which outlives the account). */
  email: string;
  kind: SecurityEventKind;
  /** The request's client; absent for what the CLI or the clock did. */
  client?: { ip: string; userAgent: string };
  detail?: SecurityEventDetail;
}

/** An entry as the pages and the administration show it. */
export interface SecurityEvent {
  id: number;
  user_id: number | null;
  email: string;
  kind: SecurityEventKind;
  ip: string | null;
  user_agent: string | null;
  detail: SecurityEventDetail | null;
  created_at: string;
}

/** A page of entries, newest first; `next` is the `before` of the following page, absent on the last. */
export interface SecurityEventPage {
  events: SecurityEvent[];
  next?: number;
}

export interface SecurityLogQuery {
  /** Entries older than this id (keyset paging): the previous page's `next`. */
  before?: number;
  /** 1 to 200; 50 by default. */
  limit?: number;
  kinds?: SecurityEventKind[];
}

/** What the administration asks of everyone's security log: a keyset page, newest first, filtered. */
export interface InstanceSecurityQuery {
  before?: number;
  limit: number;
  kinds?: SecurityEventKind[];
  userId?: number;
  /** At or after this instant (ms). */
  from?: number;
  /** Before this instant (ms). */
  to?: number;
}

/**
 * The statement of a page of everyone's security log: by the primary key (or the (user_id, id)
 * index for one person), newest first, so page N reads as few rows as page 1. Exported for the
 * query-plan test.
 */
export function securityLogStatement(query: InstanceSecurityQuery): { sql: string; parameters: unknown[] } {
  const where: string[] = [];
  const parameters: unknown[] = [];
  const add = (condition: string, ...values: unknown[]) => {
    where.push(condition);
    parameters.push(...values);
  };
  if (query.userId !== undefined) add('user_id = ?', query.userId);
  if (query.before !== undefined) add('id < ?', query.before);
  if (query.kinds?.length) add(`kind IN (${query.kinds.map(() => '?').join(', ')})`, ...query.kinds);
  if (query.from !== undefined) add('created_at >= ?', query.from);
  if (query.to !== undefined) add('created_at < ?', query.to);
  const sql = `SELECT id, user_id, email, kind, ip, user_agent, detail, created_at FROM security_events${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
  return { sql, parameters: [...parameters, query.limit] };
}

const INSERT = 'INSERT INTO security_events (user_id, email, kind, ip, user_agent, detail, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)';
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

/**
 * Each person's security log: sign-ins and their failures, lockouts, changes of password, address
 * and two-factor, account creation and deletion. Written in the transaction of the change it tells
 * of where there is one (`statement` for Sql.writeIf, or `record` with the transaction's manager),
 * read newest first by keyset (an id), for the person and for the administration.
 */
@Injectable()
export class SecurityLog {
  constructor(
    @InjectRepository(SecurityEventEntity) private readonly events: Repository<SecurityEventEntity>,
    private readonly clock: Clock,
    private readonly sql: Sql,
    private readonly stdout: AuditStdout,
  ) {}

  /** A page of everyone's entries for the administration, newest first, filtered (see securityLogStatement). */
  async instancePage(query: InstanceSecurityQuery): Promise<SecurityEvent[]> {
    const { sql, parameters } = securityLogStatement(query);
    const rows = await this.sql.rows<Record<string, unknown>>(sql, parameters);
    return rows.map((row) =>
      toSecurityEvent({
        id: Number(row.id),
        userId: row.user_id === null ? null : Number(row.user_id),
        email: row.email as string,
        kind: row.kind as string,
        ip: (row.ip as string | null) ?? null,
        userAgent: (row.user_agent as string | null) ?? null,
        detail: (row.detail as string | null) ?? null,
        createdAt: Number(row.created_at),
      }),
    );
  }

  /** Records the event, inside `manager`'s transaction when given. */
  async record(event: SecurityEventInput, manager?: EntityManager): Promise<void> {
    const row = this.row(event);
    await (manager ?? this.events.manager).insert(SecurityEventEntity, row);
    // Within a transaction, the line follows the insert, not the commit (which a later statement could still undo).
    this.toStdout(row);
  }

  /** The statement that records the event, for a transaction built of statements (Sql.writeIf). */
  statement(event: SecurityEventInput): Statement {
    const row = this.row(event);
    return { sql: INSERT, parameters: [row.userId, row.email, row.kind, row.ip, row.userAgent, row.detail, row.createdAt], atomic: true, written: () => this.toStdout(row) };
  }

  /** One person's entries, newest first. */
  list(userId: number, query: SecurityLogQuery = {}): Promise<SecurityEventPage> {
    return this.page({ userId }, query);
  }

  /** Everyone's entries, newest first (the administration's view). */
  listAll(query: SecurityLogQuery = {}): Promise<SecurityEventPage> {
    return this.page({}, query);
  }

  private async page(where: { userId?: number }, query: SecurityLogQuery): Promise<SecurityEventPage> {
    const limit = Math.min(Math.max(Math.trunc(query.limit ?? DEFAULT_LIMIT), 1), MAX_LIMIT);
    const rows = await this.events.find({
      where: {
        ...where,
        ...(query.before === undefined ? {} : { id: LessThan(query.before) }),
        ...(query.kinds?.length ? { kind: In(query.kinds) } : {}),
      },
      order: { id: 'DESC' },
      take: limit + 1,
    });
    const events = rows.slice(0, limit).map(toSecurityEvent);
    return rows.length > limit ? { events, next: events[events.length - 1].id } : { events };
  }

  /** PWP__AUDIT__STDOUT's line of an event (see AuditStdout). */
  private toStdout(row: Omit<SecurityEventEntity, 'id'>): void {
    if (!this.stdout.enabled) return;
    const detail = row.detail === null ? null : (JSON.parse(row.detail) as SecurityEventDetail);
    this.stdout.write({
      source: 'account',
      kind: row.kind,
      at: new Date(row.createdAt).toISOString(),
      push_id: null,
      request_id: null,
      user_id: row.userId,
      email: row.email,
      administrator: detail?.by === 'admin' && typeof detail.admin === 'string' ? detail.admin : null,
      ip: row.ip,
      user_agent: row.userAgent,
      referrer: null,
      detail,
    });
  }

  private row(event: SecurityEventInput): Omit<SecurityEventEntity, 'id'> {
    const detail = event.detail === undefined ? null : JSON.stringify(event.detail);
    return {
      userId: event.userId,
      email: event.email,
      kind: event.kind,
      ip: event.client?.ip.slice(0, 45) ?? null,
      userAgent: event.client?.userAgent.slice(0, 255) ?? null,
      // Bounded by the column; a detail is a few short facts, so this never cuts one that matters.
      detail: detail !== null && detail.length > 1000 ? JSON.stringify({ truncated: true }) : detail,
      createdAt: this.clock.now(),
    };
  }
}

function toSecurityEvent(row: SecurityEventEntity): SecurityEvent {
  return {
    id: row.id,
    user_id: row.userId,
    email: row.email,
    kind: row.kind as SecurityEventKind,
    ip: row.ip,
    user_agent: row.userAgent,
    detail: row.detail === null ? null : (JSON.parse(row.detail) as SecurityEventDetail),
    created_at: new Date(row.createdAt).toISOString(),
  };
}
