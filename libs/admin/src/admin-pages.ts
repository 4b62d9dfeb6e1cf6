import { Injectable } from '@nestjs/common';
import { type Administrator, PeopleAdministration, type PersonAction, type PersonSummary } from '@app/auth';
import { AuditService } from '@app/audit';
import { BadRequestError, type ClientInfo, Clock, DAY_MS, ValidationFailedError } from '@app/common';
import { InjectSettings, type Settings } from '@app/config';
import { DELIVERY_VIEWS, DeliveryRecords, type DeliveryView } from '@app/notifications';
import { dateText, type PageResult, text } from '@app/pages';
import { PushDirectory } from '@app/pushes';
import { VersionService } from '@app/version';
import { AuditTrail, TRAIL_KINDS, type TrailEntry, type TrailFilter } from './audit-trail';
import { CUSTOM_CSS_MAX, CustomStylesheets } from './custom-stylesheets';

/** A positive whole number from a query or path (`page`, `before`, an id); absent is undefined, anything else a 400. */
export function wholeNumber(value: unknown): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value) || Number(value) < 1) throw new BadRequestError(text('admin.badNumber'));
  return Number(value);
}

/** A keyset position: a whole number, 0 meaning that log is read to its end. */
function position(value: unknown): number | undefined {
  return value === '0' ? 0 : wholeNumber(value);
}

/** The push or secret request an entry tells of, by its token's start and its id (a request named as one). */
function subjectText(entry: TrailEntry): string | undefined {
  if (entry.push_token_start !== null) return `${entry.push_token_start}… (#${entry.push_id})`;
  if (entry.request_token_start !== null) return `${text('kind.request')} ${entry.request_token_start}… (#${entry.request_id})`;
  return undefined;
}

/** The audit page's filters, as the query gives them (strings only). */
export function trailFilter(query: Record<string, unknown>): TrailFilter {
  const field = (name: string) => {
    const value = query[name];
    return typeof value === 'string' ? value.slice(0, 255) : undefined;
  };
  return { person: field('person'), kind: field('kind'), from: field('from'), to: field('to') };
}

/** Entries on a page of the audit log. */
export const TRAIL_PAGE_SIZE = 50;

const yesNo = (value: boolean) => text(value ? 'admin.yes' : 'admin.no');
const onOff = (value: boolean) => text(value ? 'admin.on' : 'admin.off');

/**
 * The administration's pages: what each shows and what each action does, reading only through
 * the other libraries' public faces (people from auth, pushes' metadata from pushes, the audit
 * log from audit, deliveries from notifications). The gate (AdminGuard) has already let only an
 * administrator through.
 */
@Injectable()
export class AdminPages {
  constructor(
    private readonly people: PeopleAdministration,
    private readonly pushes: PushDirectory,
    private readonly audit: AuditService,
    private readonly deliveries: DeliveryRecords,
    private readonly version: VersionService,
    private readonly trail: AuditTrail,
    private readonly stylesheets: CustomStylesheets,
    private readonly clock: Clock,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  /** GET /admin: the counts, the version and the settings that matter for security (on or off, never a value). */
  async home(): Promise<PageResult> {
    const [people, pushes, auditEntries, deliveries] = await Promise.all([this.people.count(), this.pushes.counts(), this.audit.count(), this.deliveries.counts()]);
    const { accounts, signIn, allowAnonymous } = this.settings;
    return {
      view: 'admin/home',
      title: text('admin.title'),
      data: {
        section: 'home',
        counts: [
          { label: text('admin.count.people'), value: people, href: '/admin/users' },
          { label: text('admin.count.pushes'), value: pushes.total, href: '/admin/pushes' },
          { label: text('admin.count.activePushes'), value: pushes.active },
          { label: text('admin.count.auditEntries'), value: auditEntries, href: '/admin/audit' },
          { label: text('admin.count.queued'), value: deliveries.queued, href: '/admin/notifications?status=pending' },
          { label: text('admin.count.dead'), value: deliveries.dead, href: '/admin/notifications?status=dead' },
        ],
        version: this.version.describe().application_version,
        security: [
          { label: text('admin.security.anonymous'), value: onOff(allowAnonymous) },
          { label: text('admin.security.signUps'), value: onOff(!accounts.disableSignups) },
          { label: text('admin.security.mfa'), value: yesNo(accounts.requireMfa) },
          { label: text('admin.security.sso'), value: onOff(signIn.oidc !== undefined) },
          { label: text('admin.security.accountEmails'), value: onOff(accounts.accountEmails) },
        ],
      },
    };
  }

  /** GET /admin/users: 25 a page, oldest first, searched by address; the actions beside each person but oneself. */
  async users(administrator: Administrator, query: { page?: unknown; q?: unknown; done?: unknown }): Promise<PageResult> {
    const page = wholeNumber(query.page) ?? 1;
    const search = typeof query.q === 'string' ? query.q.slice(0, 255) : '';
    const { people, hasNext } = await this.people.page(page, search);
    const href = (n: number) => `/admin/users?${new URLSearchParams({ ...(search ? { q: search } : {}), page: String(n) }).toString()}`;
    const done = typeof query.done === 'string' && DONE.has(query.done) ? text(`admin.users.done.${query.done as PersonAction}`) : undefined;
    return {
      view: 'admin/users',
      title: text('admin.users.title'),
      data: {
        section: 'users',
        search,
        done,
        people: people.map((person) => this.personRow(person, administrator)),
        page,
        previous: page > 1 ? href(page - 1) : undefined,
        next: hasNext ? href(page + 1) : undefined,
      },
    };
  }

  /** POST /admin/users/:id/:action: the action (a person's pushes are deleted before their account), then the list showing them. */
  async act(administrator: Administrator, id: unknown, action: PersonAction): Promise<PageResult> {
    const personId = wholeNumber(id) ?? 0;
    if (action === 'delete') {
      await this.people.target(administrator, personId);
      await this.pushes.deleteAllOwnedBy(personId);
    }
    const person = await this.people.act(administrator, personId, action);
    const search = action === 'delete' ? '' : `q=${encodeURIComponent(person.email)}&`;
    return { redirect: `/admin/users?${search}done=${action}`, status: 303 };
  }

  /** GET /admin/pushes: every push's metadata, newest first (keyset by id); never a secret, name, note or full token. */
  async pushList(query: { before?: unknown; done?: unknown }): Promise<PageResult> {
    const before = wholeNumber(query.before);
    const { pushes, next } = await this.pushes.page(before);
    const owners = await this.people.emailsOf(pushes.flatMap((push) => (push.userId === null ? [] : [push.userId])));
    const now = this.clock.now();
    return {
      view: 'admin/pushes',
      title: text('admin.pushes.title'),
      data: {
        section: 'pushes',
        done: query.done === 'expire' ? text('admin.pushes.expired') : undefined,
        pushes: pushes.map((push) => ({
          id: push.id,
          token: `${push.tokenStart}…`,
          kind: text(`kind.${push.kind}`),
          owner: push.userId === null ? text('admin.pushes.anonymous') : (owners.get(push.userId) ?? text('admin.pushes.anonymous')),
          created: new Date(push.createdAt).toISOString(),
          createdText: dateText(push.createdAt),
          views: push.expired ? '–' : String(Math.max(push.expireAfterViews - push.viewCount, 0)),
          days: push.expired ? '–' : String(Math.max(Math.ceil((push.expiresAt - now) / DAY_MS), 0)),
          expired: push.expired,
          status: yesNo(push.expired),
        })),
        first: before === undefined ? undefined : '/admin/pushes',
        next: next === undefined ? undefined : `/admin/pushes?before=${next}`,
      },
    };
  }

  /** POST /admin/pushes/:id/expire: audited as `expire` with the administrator's address and client. */
  async expire(administrator: Administrator, id: unknown, client: ClientInfo): Promise<PageResult> {
    await this.pushes.expire(wholeNumber(id) ?? 0, administrator.user.email, client);
    return { redirect: '/admin/pushes?done=expire', status: 303 };
  }

  /** GET /admin/audit: the instance's one log, newest first, filtered; keyset pages; the exports of the same filter. */
  async auditLog(query: Record<string, unknown>): Promise<PageResult> {
    const filter = trailFilter(query);
    const cursor = { push: position(query.push_before), request: position(query.request_before), account: position(query.account_before) };
    const { entries, next } = await this.trail.page(filter, cursor, TRAIL_PAGE_SIZE);
    const filters = Object.fromEntries(Object.entries(filter).filter(([, value]) => value)) as Record<string, string>;
    const withFilters = (extra: Record<string, string>) => new URLSearchParams({ ...filters, ...extra }).toString();
    return {
      view: 'admin/audit',
      title: text('admin.audit.title'),
      data: {
        section: 'audit',
        filter,
        kinds: TRAIL_KINDS.map((kind) => ({ kind, selected: kind === filter.kind })),
        entries: entries.map((entry) => ({
          ...entry,
          atText: dateText(entry.at),
          push: subjectText(entry),
        })),
        first: [query.push_before, query.request_before, query.account_before].every((before) => before === undefined) ? undefined : `/admin/audit?${withFilters({})}`,
        next: next && `/admin/audit?${withFilters({ push_before: String(next.push ?? ''), request_before: String(next.request ?? ''), account_before: String(next.account ?? '') })}`,
        csv: `/admin/audit/export?${withFilters({ format: 'csv' })}`,
        jsonl: `/admin/audit/export?${withFilters({ format: 'jsonl' })}`,
      },
    };
  }

  /** GET /admin/notifications: deliveries waiting, failing (retried on their own) and given up, newest first; "retry" on the dead ones. */
  async notifications(query: Record<string, unknown>): Promise<PageResult> {
    const status: DeliveryView = (DELIVERY_VIEWS as readonly unknown[]).includes(query.status) ? (query.status as DeliveryView) : 'pending';
    const before = wholeNumber(query.before);
    const { deliveries, next } = await this.deliveries.page(status, before);
    return {
      view: 'admin/notifications',
      title: text('admin.notifications.title'),
      data: {
        section: 'notifications',
        done: query.done === 'retry' ? text('admin.notifications.retried') : undefined,
        tabs: DELIVERY_VIEWS.map((view) => ({ href: `/admin/notifications?status=${view}`, label: text(`admin.notifications.${view}`), current: view === status })),
        dead: status === 'dead',
        deliveries: deliveries.map((delivery) => ({
          ...delivery,
          channelText: delivery.channel === 'mail' ? text('admin.notifications.mail') : text('admin.notifications.webhook', { id: delivery.webhookId ?? 0 }),
          created: new Date(delivery.createdAt).toISOString(),
          createdText: dateText(delivery.createdAt),
          nextText: delivery.status === 'pending' ? dateText(delivery.nextAttemptAt) : '–',
          error: [delivery.lastStatusCode, delivery.lastError].filter((part) => part !== null).join(' ') || '–',
        })),
        first: before === undefined ? undefined : `/admin/notifications?status=${status}`,
        next: next === undefined ? undefined : `/admin/notifications?status=${status}&before=${next}`,
      },
    };
  }

  /** POST /admin/notifications/:id/retry: a dead delivery pending again, due now (the worker's next round takes it). */
  async retry(id: unknown): Promise<PageResult> {
    await this.deliveries.retry(wholeNumber(id) ?? 0);
    return { redirect: '/admin/notifications?status=pending&done=retry', status: 303 };
  }

  /** Logs an export of the audit log (its format and filters) in the administrator's own security log, before it streams. */
  async exporting(administrator: Administrator, format: string, filter: TrailFilter): Promise<void> {
    const given = Object.fromEntries(Object.entries(filter).filter(([, value]) => value)) as Record<string, string>;
    await this.people.recordOwn(administrator, 'audit_exported', { format, ...given });
  }

  /** GET /admin/custom_css: the stylesheet every page links, to edit. */
  async customCss(done?: unknown, refused?: { css: string; error: string }): Promise<PageResult> {
    return {
      view: 'admin/custom-css',
      title: text('admin.css.title'),
      status: refused ? 422 : 200,
      data: {
        section: 'custom-css',
        done: done === 'save' ? text('admin.css.saved') : undefined,
        css: refused?.css ?? (await this.stylesheets.current()).css,
        error: refused?.error,
        max: CUSTOM_CSS_MAX,
      },
    };
  }

  /** POST /admin/custom_css: a new stylesheet, served at once on every page of every replica. */
  async saveCustomCss(administrator: Administrator, css: unknown): Promise<PageResult> {
    const given = typeof css === 'string' ? css : '';
    try {
      await this.stylesheets.save(given, administrator.user.email);
      await this.people.recordOwn(administrator, 'custom_css_saved', { characters: given.length });
    } catch (error) {
      if (!(error instanceof ValidationFailedError)) throw error;
      return this.customCss(undefined, { css: given.slice(0, CUSTOM_CSS_MAX), error: error.message });
    }
    return { redirect: '/admin/custom_css?done=save', status: 303 };
  }

  private personRow(person: PersonSummary, administrator: Administrator) {
    const self = person.id === administrator.user.id;
    const actions: PersonAction[] = self
      ? []
      : [
          person.admin ? 'revoke' : 'promote',
          person.disabled ? 'enable' : 'disable',
          ...(person.two_factor ? (['reset_two_factor'] as const) : []),
          ...(this.people.resetMails && person.sign_in.includes('password') ? (['send_reset'] as const) : []),
          'delete',
        ];
    return {
      id: person.id,
      email: person.email,
      created: new Date(person.created_at).toISOString(),
      createdText: dateText(person.created_at),
      lastSignIn: person.last_sign_in_at === null ? undefined : new Date(person.last_sign_in_at).toISOString(),
      lastSignInText: person.last_sign_in_at === null ? text('admin.users.never') : dateText(person.last_sign_in_at),
      signIn: person.sign_in.map((method) => text(`admin.users.method.${method}`)).join(', ') || '–',
      twoFactor: yesNo(person.two_factor),
      admin: yesNo(person.admin),
      disabled: yesNo(person.disabled),
      self,
      actions: actions.map((action) => ({ action, label: text(`admin.users.action.${action}`), danger: action === 'delete' || action === 'disable' })),
    };
  }
}

const DONE = new Set<string>(['promote', 'revoke', 'disable', 'enable', 'reset_two_factor', 'send_reset', 'delete']);
