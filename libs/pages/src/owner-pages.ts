import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import QRCode from 'qrcode';
import type { AuditEntryResponse } from '@app/audit';
import type { AuthenticatedUser } from '@app/auth';
import { type ClientInfo, Clock, createValidationPipe, type FieldErrors, ForbiddenError, NotFoundError, PAGE_SIZE, ValidationFailedError } from '@app/common';
import { InjectSettings, PUSH_KINDS, type PushKind, type Settings } from '@app/config';
import type { UploadBatch } from '@app/files';
import { I18n } from '@app/i18n';
import { anonymousRefusal, CreatePushBody, type OwnedPushResponse, PushesService, type PushResponse } from '@app/pushes';
import { message } from './page-exception.filter';
import type { PageResult } from './page-responder';
import { PageSession } from './page-session';
import { dateText, filesHintText, pageLocale, sizeText, text, type TextKey } from './page-text';
import { remaining } from './recipient-pages';
import { shareMessage } from './share-message';

const SIGN_IN: PageResult = { redirect: '/users/sign_in', status: 303 };
const HOME: PageResult = { redirect: '/', status: 303 };

/** The form's fields that are shown again after a refusal; never the passphrase. */
const KEPT_FIELDS = ['payload', 'expire_after_days', 'expire_after_views', 'name', 'note'] as const;
/** Fields with a place of their own on the form, where their errors are shown. */
const FORM_FIELDS = [...KEPT_FIELDS, 'passphrase', 'files', 'retrieval_step', 'deletable_by_viewer'] as const;
/** A checkbox sends "true" when ticked, after its hidden "false": the last value is the answer. */
const CHECKBOXES = ['retrieval_step', 'deletable_by_viewer'];
/** An emptied number box means the kind's default, as an omitted field does. */
const NUMBERS = ['expire_after_days', 'expire_after_views'];

/** What a refused create tells its form: each field's message, and those without a field of their own. */
export interface FormRefusal {
  errors: FieldErrors;
  status: number;
}

/**
 * The owner's pages: the push form, the "push created" page, the dashboard, the audit log and
 * "Expire now". Every rule (who may create, limits, defaults, ownership, expiry) is PushesService's,
 * called as the API calls it; the form's body is validated by the same pipe and DTO as the API's.
 */
@Injectable()
export class OwnerPages {
  private readonly validation = createValidationPipe();

  constructor(
    private readonly pushes: PushesService,
    private readonly session: PageSession,
    private readonly clock: Clock,
    private readonly i18n: I18n,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  private get signInFirst(): PageResult {
    return signInFirst(this.settings);
  }

  /** The push form without a person, when anonymous pushes are off: sign in, or (sign-in off) the API is the only way. */
  private get anonymousRefused(): PageResult {
    return this.settings.accounts.disableLogins ? message(403, text('account.notSignedIn'), text('account.signInOff')) : SIGN_IN;
  }

  /** GET / and /p/new: the form for one kind (`?kind=`), the first enabled one by default. */
  form(user: AuthenticatedUser | undefined, kind: unknown): PageResult {
    if (!user && !this.settings.allowAnonymous) return this.anonymousRefused;
    return this.formPage(user, this.kindOf(kind));
  }

  /** POST /p/new: creates the push and sends the browser to its preview, or shows the form again with what to correct. */
  async create(request: Request, client: ClientInfo, user: AuthenticatedUser | undefined, uploads?: UploadBatch): Promise<PageResult> {
    this.session.checkCsrf(request);
    if (!user && !this.settings.allowAnonymous) return this.anonymousRefused;
    const body = formBody(request.body);
    try {
      const push = (await this.validation.transform(body, { type: 'body', metatype: CreatePushBody })) as CreatePushBody;
      const created = await this.pushes.create(push.push, client, user, uploads);
      // The language chosen for the link (push_locale) is the preview's to show, never stored.
      const linkLocale = this.i18n.supported(typeof body.push_locale === 'string' ? body.push_locale : undefined);
      return { redirect: `/p/${created.url_token}/preview${linkLocale ? `?push_locale=${linkLocale}` : ''}`, status: 303 };
    } catch (error) {
      if (!(error instanceof ValidationFailedError)) throw error;
      return this.refusedForm(request, user, { errors: error.errors, status: 422 });
    }
  }

  /** The form again after a refused create, with the values sent (never the passphrase) and each error beside its field. */
  refusedForm(request: Request, user: AuthenticatedUser | undefined, refusal: FormRefusal): PageResult {
    const push = (formBody(request.body).push ?? {}) as Record<string, unknown>;
    const values = Object.fromEntries(KEPT_FIELDS.map((field) => [field, typeof push[field] === 'string' ? push[field] : undefined]));
    const checks = Object.fromEntries(CHECKBOXES.map((field) => [field, push[field] === undefined ? undefined : push[field] === 'true']));
    // A multipart body refused while its files arrived was not read to its end: the form's address names its kind.
    return this.formPage(user, this.kindOf(push.kind ?? request.query.kind), { values, checks, ...refusal });
  }

  /**
   * GET /p/:token/preview: the link, its QR code, how long it lasts and a message to send with it;
   * public, as the reference's; consumes nothing. `?push_locale=` puts the link (its `?locale=`),
   * so its QR code, and the message in that language: the recipient's, not the sender's.
   */
  async preview(urlToken: string, client: ClientInfo, user: AuthenticatedUser | undefined, pushLocale: unknown): Promise<PageResult> {
    const push = await this.pushes.peek(urlToken, client);
    const linkLocale = this.i18n.supported(typeof pushLocale === 'string' ? pushLocale : undefined);
    const url = linkLocale ? `${push.html_url}?locale=${linkLocale}` : push.html_url;
    const svg = await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    const now = this.clock.now();
    const left = remaining(push, now);
    return {
      view: 'preview',
      title: text('preview.title'),
      data: {
        token: urlToken,
        url,
        qr: labelledSvg(svg, text('preview.qr')),
        expired: push.expired,
        expiry: text('preview.expires', { views: left.views, expiry: left.expiry }),
        share: push.expired ? undefined : this.share(linkLocale ?? pageLocale(), url, push, now),
        linkLanguages: this.linkLanguages(linkLocale),
        auditHref: user ? `/p/${urlToken}/audit` : undefined,
      },
    };
  }

  private share(locale: string, url: string, push: PushResponse, now: number) {
    return { text: shareMessage(this.i18n, locale, url, push, now), locale, dir: this.i18n.language(locale).dir };
  }

  /** The choices of the link's language (push_locale): the recipient's own first; none with one language. */
  private linkLanguages(selected: string | undefined): { code: string; name: string; selected: boolean }[] | undefined {
    if (this.i18n.languages.length < 2) return undefined;
    return [{ code: '', name: text('linkLanguage.auto'), selected: selected === undefined }, ...this.i18n.languages.map(({ code, name }) => ({ code, name, selected: code === selected }))];
  }

  /** GET /dashboard/active and /dashboard/expired: the owner's pushes, newest first, 50 a page. */
  async dashboard(user: AuthenticatedUser | undefined, expired: boolean, page: number, client: ClientInfo): Promise<PageResult> {
    if (!user) return this.signInFirst;
    const { items, next } = await this.pushes.list(user, expired, page, client);
    const list = expired ? 'expired' : 'active';
    const href = (n: number) => `/dashboard/${list}?page=${n}`;
    return {
      view: 'dashboard',
      title: text(expired ? 'dashboard.expired' : 'dashboard.active'),
      data: {
        expired,
        pushes: items.map((push) => dashboardRow(push)),
        page,
        previous: page > 1 ? href(page - 1) : undefined,
        next: next === null ? undefined : href(page + 1),
      },
    };
  }

  /** GET /p/:token/audit: the owner's view of one push and its audit log; anyone else gets the neutral 404. */
  async audit(urlToken: string, user: AuthenticatedUser | undefined, page: number, client: ClientInfo): Promise<PageResult> {
    if (!user) return this.signInFirst;
    const push = await ownedOrGone(() => this.pushes.ownedPush(urlToken, user, client));
    const { logs } = await this.pushes.auditLog(urlToken, page, user);
    const words = remaining(push, this.clock.now());
    return {
      view: 'audit',
      title: text('audit.title'),
      data: {
        token: urlToken,
        kind: kindLabel(push.kind),
        expired: push.expired,
        status: push.expired ? text('audit.isExpired') : text('audit.active', { views: words.views, expiry: words.expiry }),
        entries: logs.map(auditRow),
        previous: page > 1 ? `/p/${urlToken}/audit?page=${page - 1}` : undefined,
        next: logs.length === PAGE_SIZE ? `/p/${urlToken}/audit?page=${page + 1}` : undefined,
      },
    };
  }

  /** GET /p/:token/expire: "Expire now", asked once more, without needing JavaScript. */
  async confirmExpiry(urlToken: string, user: AuthenticatedUser | undefined, client: ClientInfo): Promise<PageResult> {
    if (!user) return this.signInFirst;
    await ownedOrGone(() => this.pushes.ownedPush(urlToken, user, client));
    return { view: 'expire', title: text('expire.title'), data: { token: urlToken } };
  }

  /** POST /p/:token/expire: the owner expires the push (the API's DELETE), then sees its audit log. */
  async expire(request: Request, urlToken: string, user: AuthenticatedUser | undefined, client: ClientInfo): Promise<PageResult> {
    this.session.checkCsrf(request);
    if (!user) return this.signInFirst;
    // Only the owner here: a viewer-deletable push is deleted by its viewers on the recipient's page.
    await ownedOrGone(() => this.pushes.ownedPush(urlToken, user, client));
    await this.pushes.destroy(urlToken, undefined, client, user);
    return { redirect: `/p/${urlToken}/audit`, status: 303 };
  }

  /** Why an anonymous visitor gets no form for this kind, if the creation rules need an owner for it. */
  private signInNotice(kind: PushKind): string | undefined {
    if (anonymousRefusal({ withFiles: kind === 'file', kind }, this.settings) === undefined) return undefined;
    return text(kind === 'file' ? 'form.filesSignIn' : 'form.urlSignIn');
  }

  private kindOf(kind: unknown): PushKind {
    const enabled = PUSH_KINDS.filter((each) => this.settings.kinds[each].enabled);
    return enabled.find((each) => each === kind) ?? enabled[0];
  }

  private formPage(user: AuthenticatedUser | undefined, kind: PushKind, refusal?: FormRefusal & { values: Record<string, unknown>; checks: Record<string, boolean | undefined> }): PageResult {
    const settings = this.settings.kinds[kind];
    const { files } = this.settings;
    const { fieldErrors, otherErrors } = formErrors(refusal?.errors ?? {}, FORM_FIELDS);
    const checked = (field: string, toggle: { enabled: boolean; default: boolean }) => toggle.enabled && (refusal?.checks[field] ?? toggle.default);
    return {
      view: 'push-form',
      title: text('form.title'),
      status: refusal?.status,
      data: {
        kind,
        kinds: PUSH_KINDS.filter((each) => this.settings.kinds[each].enabled).map((each) => ({
          href: each === 'text' ? '/p/new' : `/p/new?kind=${each}`,
          label: kindLabel(each),
          current: each === kind,
        })),
        payloadLabel: text(`form.payload.${kind}` as TextKey),
        payloadRequired: kind !== 'file',
        multiline: kind !== 'url',
        maxLength: kind === 'qr' ? 1024 : undefined,
        files: kind === 'file',
        signedIn: user !== undefined,
        signInNotice: user ? undefined : this.signInNotice(kind),
        filesHint: filesHintText(files),
        maxFiles: files.maxUploads,
        maxFileBytes: files.maxFileBytes,
        maxFileSize: sizeText(files.maxFileBytes),
        days: { ...settings.expireAfterDays, value: refusal?.values.expire_after_days ?? settings.expireAfterDays.default },
        views: { ...settings.expireAfterViews, value: refusal?.values.expire_after_views ?? settings.expireAfterViews.default },
        retrievalStep: settings.retrievalStep.enabled ? { checked: checked('retrieval_step', settings.retrievalStep) } : undefined,
        deletable: settings.deletableByViewer.enabled && kind !== 'url' ? { checked: checked('deletable_by_viewer', settings.deletableByViewer) } : undefined,
        values: refusal?.values ?? {},
        errors: fieldErrors,
        otherErrors,
        refused: refusal !== undefined,
        linkLanguages: this.linkLanguages(undefined),
      },
    };
  }
}

/** The form's body as the API reads a create's: the push fields under `push`, checkboxes and emptied numbers resolved. */
function formBody(body: unknown): { push?: unknown; push_locale?: unknown } {
  return wrappedForm(body, 'push', CHECKBOXES, NUMBERS);
}

/**
 * A form's body as the API reads the same create: the fields under `wrapper`, each checkbox's
 * last value (a hidden "false" comes before a ticked box's "true"), and emptied number boxes
 * left out (as omitted, meaning the default). The pages of secret requests read theirs so too.
 */
export function wrappedForm(body: unknown, wrapper: string, checkboxes: readonly string[], numbers: readonly string[]): Record<string, unknown> {
  const sent = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const wrapped = sent[wrapper];
  if (typeof wrapped !== 'object' || wrapped === null || Array.isArray(wrapped)) return sent;
  const fields = { ...(wrapped as Record<string, unknown>) };
  for (const field of checkboxes) if (Array.isArray(fields[field])) fields[field] = (fields[field] as unknown[]).at(-1);
  for (const field of numbers) if (fields[field] === '') delete fields[field];
  return { ...sent, [wrapper]: fields };
}

/** A refused form's errors: the first message of each field with a place on the form (or of anything under it, `files.0.data`), and the rest. */
export function formErrors<F extends string>(errors: FieldErrors, fields: readonly F[]): { fieldErrors: Record<F, string | undefined>; otherErrors: string[] } {
  const under = (key: string, field: string) => key === field || key.startsWith(`${field}.`);
  const fieldErrors = Object.fromEntries(fields.map((field) => [field, Object.entries(errors).find(([key]) => under(key, field))?.[1][0]])) as Record<F, string | undefined>;
  const otherErrors = Object.entries(errors)
    .filter(([key]) => !fields.some((field) => under(key, field)))
    .flatMap(([, messages]) => messages);
  return { fieldErrors, otherErrors };
}

/** Where a page that needs a person sends a visitor: the sign-in page, or `/` while PWP__DISABLE_LOGINS is on. */
export function signInFirst(settings: Settings): PageResult {
  return settings.accounts.disableLogins ? HOME : SIGN_IN;
}

/** Runs an owner-only call; someone else's push (or request) is the same neutral 404 as an unknown one. */
export async function ownedOrGone<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ForbiddenError) throw new NotFoundError();
    throw error;
  }
}

const kindLabel = (kind: PushKind): string => text(`kind.${kind}`);

function dashboardRow(push: OwnedPushResponse) {
  return {
    token: push.url_token,
    name: push.name === '' ? undefined : push.name,
    label: push.name === '' ? text('dashboard.unnamed') : push.name,
    kind: kindLabel(push.kind),
    views: push.views_remaining,
    days: push.days_remaining,
    created: push.created_at,
    createdText: dateText(push.created_at),
    expiredOn: push.expired_on ?? undefined,
    expiredOnText: push.expired_on ? dateText(push.expired_on) : undefined,
  };
}

function auditRow(entry: AuditEntryResponse) {
  return {
    event: text(`audit.event.${entry.kind}` as TextKey),
    ip: entry.ip,
    userAgent: entry.user_agent,
    referrer: entry.referrer,
    when: entry.created_at,
    whenText: dateText(entry.created_at),
  };
}

/** The QR code's SVG as an image with a name, for screen readers (the two-factor setup's too). */
export function labelledSvg(svg: string, label: string): string {
  return svg.replace('<svg ', `<svg role="img" aria-label="${label.replace(/[&"<>]/g, '')}" focusable="false" class="qr-code" `);
}
