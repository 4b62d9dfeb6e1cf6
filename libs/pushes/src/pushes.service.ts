import { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { AuditLogResponse, AuditService } from '@app/audit';
import type { AuthenticatedUser } from '@app/auth';
import {
  characterCount,
  ClientInfo,
  Clock,
  DAY_MS,
  FieldFaults,
  fieldErrorsOf,
  ForbiddenError,
  humanize,
  isWebUrl,
  NotFoundError,
  Page,
  PAGE_SIZE,
  publicBaseUrl,
  PassphraseRequiredError,
  toPage,
  TooManyRequestsError,
  UnauthenticatedError,
  ValidationFailedError,
} from '@app/common';
import { InjectSettings, PushKind, Range, Settings } from '@app/config';
import { FieldCipher, PassphraseHasher, randomToken } from '@app/crypto';
import { Statement, WriteResult } from '@app/database';
import { ExpiryReason, Outbox, PushEventType } from '@app/events';
import { type AttachedFile, FileAttachments, type IncomingFile, type StoredFile, UploadBatch } from '@app/files';
import { Metrics, RetrievalOutcome } from '@app/metrics';
import { FailedAttempts } from '@app/rate-limit';
import { JsonFileInput, NotifyEmailsInput, PushInput } from './dto/create-push.dto';
import { daysOf, describeDurations, describeLifetime, expiresAtFor, hasElapsed, LIFETIME_BY_DURATION } from './expiry';
import {
  mapOwnedPush,
  mapPush,
  mapRetrievedPush,
  NotifyEmailsResponse,
  OwnedPushResponse,
  PreviewResponse,
  PushResponse,
  RetrievedPushResponse,
  htmlUrlOf,
  listUrlOf,
  remainingOf,
} from './dto/push-response.dto';
import { MAX_NOTIFY_EMAILS, NOTIFY_LOCALES, NOTIFY_MESSAGES, parseRecipients } from './notify-emails';
import { PushEntity } from './push.entity';
import { NewPush, PushesRepository, StoredPush } from './pushes.repository';

const QR_PAYLOAD_MAX = 1024;
const DISABLED_MESSAGES: Record<PushKind, string> = {
  text: 'Text pushes are disabled.',
  file: 'File pushes are disabled.',
  url: 'URL pushes are disabled.',
  qr: 'QR code pushes are disabled.',
};
const NOT_DELETABLE = 'That push is not deletable by viewers.';
const NOT_YOURS = "That push doesn't belong to you.";
const TOO_MANY_ATTEMPTS = 'Too many failed passphrase attempts. Try again later.';
const NOTIFY_REQUESTS_PER_MINUTE = 5;

/** The link mail a create or a later request asks for: who, in which locale, and the base of its link. */
interface LinkMailRequest {
  recipients: string[];
  locale: string | null;
  /** The configured base (see MailSettings.linkBaseUrl), never the request's. */
  baseUrl: string;
}

/** The id of the push inserted by the first statement of a transaction. */
const insertedPush = (earlier: WriteResult[]) => earlier[0].insertId;

/** The push lifecycle: creation rules, counted retrieval, preview and deletion. */
@Injectable()
export class PushesService {
  constructor(
    private readonly repository: PushesRepository,
    private readonly audit: AuditService,
    private readonly cipher: FieldCipher,
    private readonly hasher: PassphraseHasher,
    private readonly attempts: FailedAttempts,
    private readonly clock: Clock,
    @InjectSettings() private readonly settings: Settings,
    private readonly metrics: Metrics,
    private readonly files: FileAttachments,
    private readonly outbox: Outbox,
  ) {}

  /**
   * Who may create: anyone (unless anonymous use is off, which the guard enforces), but file pushes
   * need an owner, and so do URL pushes with PWP__URL__REQUIRE_ACCOUNT. Checked before anything
   * else about a create, also while the kind is disabled.
   */
  checkCreator(push: { withFiles: boolean; kind?: unknown }, owner?: AuthenticatedUser): void {
    if (owner) return;
    if (push.withFiles) throw new UnauthenticatedError('File pushes require authentication.');
    if (push.kind === 'url' && this.settings.urlPushesRequireAccount) throw new UnauthenticatedError('URL pushes require authentication.');
  }

  /** One file of a multipart create, stored encrypted as it streams in, after the checks a file push needs first. */
  async receiveFile(uploads: UploadBatch, file: IncomingFile, owner?: AuthenticatedUser): Promise<void> {
    this.checkCreator({ withFiles: true }, owner);
    if (!this.settings.kinds.file.enabled) throw ValidationFailedError.of('kind', DISABLED_MESSAGES.file);
    await uploads.add(file);
  }

  /**
   * Creates a push, with the files already received into `uploads` and those of a JSON body. A
   * create that fails leaves nothing behind: its uploads are discarded.
   */
  async create(input: PushInput, client: ClientInfo, owner?: AuthenticatedUser, uploads = this.files.uploads()): Promise<OwnedPushResponse> {
    try {
      return await this.insert(input, client, owner, uploads);
    } catch (error) {
      await uploads.discard();
      throw error;
    }
  }

  private async insert(input: PushInput, client: ClientInfo, owner: AuthenticatedUser | undefined, uploads: UploadBatch): Promise<OwnedPushResponse> {
    const withFiles = uploads.count > 0 || (input.files?.length ?? 0) > 0;
    this.checkCreator({ withFiles: withFiles || input.kind === 'file' || input.files !== undefined, kind: input.kind }, owner);
    const urlToken = randomToken();
    const passphrase = input.passphrase?.trim() ? input.passphrase : undefined;
    const now = this.clock.now();
    const { lifetime, linkMail, ...rules } = this.creationRules(input, withFiles, owner);
    if (linkMail) await this.outbox.prepareEmailCount(owner!.id);
    for (const file of input.files ?? []) await uploads.add(decodeJsonFile(file));
    const newPush: NewPush = {
      ...rules,
      urlToken,
      userId: owner?.id ?? null,
      name: input.name ?? null,
      payload: input.payload === undefined ? null : this.cipher.encrypt(input.payload, `payload:${urlToken}`),
      note: input.note ? this.cipher.encrypt(input.note, `note:${urlToken}`) : null,
      passphraseHash: passphrase === undefined ? null : await this.hasher.hash(passphrase),
      passphraseProtected: passphrase !== undefined,
      expiresAt: expiresAtFor(now, lifetime),
      createdAt: now,
      updatedAt: now,
    };
    const created = { ...newPush, id: 0, viewCount: 0, expired: false, deleted: false, expiredOn: null, auditEntryCount: 0, notifyEmailsCount: 0 };
    const baseUrl = this.baseUrl(client);
    const then = [
      this.audit.entry(insertedPush, 'creation', client),
      ...(linkMail ? this.linkMailStatements(created, insertedPush, linkMail, owner!, client, 1) : []),
      ...this.eventsOf({ ...created, ownerHasWebhooks: owner?.hasWebhooks ?? false }, 'push.created', now),
    ];
    const push = await this.repository.insert(newPush, linkMail ? 2 : 1, linkMail?.recipients.length ?? 0, then);
    // Only the daily limit of link mails can refuse the insert (Outbox.countEmails).
    if (!push) throw ValidationFailedError.of('base', NOTIFY_MESSAGES.dailyLimit);
    if (withFiles) await this.files.attach(push.id, uploads, push.expiresAt);
    this.metrics.pushCreated(push.kind);
    const response = mapOwnedPush(push, input.note ?? null, now, baseUrl);
    return linkMail ? { ...response, notify_emails_to: linkMail.recipients.join(','), notify_emails_to_locale: linkMail.locale } : response;
  }

  /**
   * Mails the push's link to more recipients (its owner only): at most MAX_NOTIFY_EMAILS over all
   * its sends, the owner's daily limit, and NOTIFY_REQUESTS_PER_MINUTE requests a minute.
   */
  async notifyEmails(urlToken: string, input: NotifyEmailsInput, client: ClientInfo, caller: AuthenticatedUser): Promise<NotifyEmailsResponse> {
    const push = await this.findActiveOrExpired(urlToken);
    if (!isOwner(push, caller)) throw new ForbiddenError(NOT_YOURS);
    const key = `notify-emails:${caller.id}`;
    const retryAfter = await this.attempts.blockedFor(key, NOTIFY_REQUESTS_PER_MINUTE);
    if (retryAfter > 0) throw new TooManyRequestsError(NOTIFY_MESSAGES.tooManyRequests, retryAfter);
    await this.attempts.recordFailure(key);
    const faults = new FieldFaults(fieldErrorsOf(input));
    const linkMail = this.linkMailRequest(input, caller, faults, true);
    faults.throwIfAny();
    if (push.expired) throw ValidationFailedError.of('base', 'That push has expired.');
    const now = this.clock.now();
    const count = linkMail!.recipients.length;
    await this.outbox.prepareEmailCount(caller.id);
    const statements = this.linkMailStatements(push, () => push.id, linkMail!, caller, client, 0);
    if (!(await this.repository.countNotifyEmails(push.id, count, MAX_NOTIFY_EMAILS, statements))) {
      // Which of the two limits refused it; the daily one first, as the reference checks it first.
      if ((await this.outbox.emailsCountedOn(caller.id, now)) + count > this.settings.mail.notifyByEmail.dailyLimit) {
        throw ValidationFailedError.of('base', NOTIFY_MESSAGES.dailyLimit);
      }
      const sent = (await this.repository.findByToken(urlToken))?.notifyEmailsCount ?? push.notifyEmailsCount;
      throw ValidationFailedError.of('base', NOTIFY_MESSAGES.pushCap(sent));
    }
    return { message: NOTIFY_MESSAGES.queued };
  }

  /**
   * Retrieval. A viewer's view is claimed atomically before anything is decrypted; a lost race
   * (another request changed the push since it was read) simply reads the push again. The
   * owner's retrievals are audited but never counted.
   */
  async retrieve(urlToken: string, passphrase: string | undefined, client: ClientInfo, caller?: AuthenticatedUser): Promise<RetrievedPushResponse> {
    try {
      return await this.claimRetrieval(urlToken, passphrase, client, caller);
    } catch (error) {
      const outcome = failedRetrievalOutcome(error);
      if (outcome) this.metrics.retrieval(outcome);
      throw error;
    }
  }

  private async claimRetrieval(urlToken: string, passphrase: string | undefined, client: ClientInfo, caller?: AuthenticatedUser): Promise<RetrievedPushResponse> {
    let passphraseChecked = false;
    for (;;) {
      const push = await this.findActiveOrExpired(urlToken);
      const now = this.clock.now();
      if (push.expired) {
        await this.auditCapped(push, 'failed_view', client, []);
        this.metrics.retrieval('expired');
        return mapRetrievedPush(push, null, [], now, this.baseUrl(client));
      }
      if (!passphraseChecked) {
        await this.checkPassphrase(push, passphrase, client);
        passphraseChecked = true;
      }
      if (isOwner(push, caller)) {
        await this.repository.countAuditEntry(push.id, undefined, [this.audit.entry(push.id, 'owner_view', client)]);
        this.metrics.retrieval('owner_view');
        return mapRetrievedPush(push, this.decryptPayload(push), await this.filesOf(push), now, this.baseUrl(client));
      }
      const viewed = { ...push, viewCount: push.viewCount + 1, updatedAt: now };
      const lastView = viewed.viewCount >= push.expireAfterViews;
      const then = [
        this.audit.entry(push.id, 'view', client),
        ...this.eventsOf(viewed, 'push.viewed', now),
        ...(lastView ? this.eventsOf({ ...viewed, expired: true }, 'push.expired', now, 'views') : []),
      ];
      if (await this.repository.claimView(push, now, then)) {
        const payload = this.decryptPayload(push);
        const files = await this.filesOf(push);
        // The last view's links work for their lifetime; then the sweep destroys the files.
        if (lastView && files.length > 0) await this.files.keepForLinks(push.id);
        this.metrics.retrieval('viewed');
        if (lastView) this.metrics.expired('views');
        return mapRetrievedPush(viewed, payload, files, now, this.baseUrl(client));
      }
    }
  }

  /** A push as its recipient's page first shows it: no view counted, nothing decrypted, nothing audited. */
  async peek(urlToken: string, client: ClientInfo): Promise<PushResponse> {
    return mapPush(await this.findActiveOrExpired(urlToken), this.clock.now(), this.baseUrl(client));
  }

  async preview(urlToken: string, client: ClientInfo): Promise<PreviewResponse> {
    const push = await this.repository.findLinkByToken(urlToken);
    if (!push) throw new NotFoundError();
    return { url: htmlUrlOf(push, this.baseUrl(client)) };
  }

  /**
   * The file a download link names. Links come from a retrieval and work for their lifetime, also
   * after the view that used up the push (its files are kept that long); never after a deletion or
   * the end of the push's days. Anything else, forged or altered links included, is a plain 404.
   * Opening for a download audits one; for its headers alone (HEAD), nothing.
   */
  async openFile(urlToken: string, link: string, client: ClientInfo, purpose: 'download' | 'headers' = 'download'): Promise<StoredFile> {
    const push = await this.findActiveOrExpired(urlToken);
    const usedUp = !push.deleted && push.viewCount >= push.expireAfterViews;
    const file = push.expired && !usedUp ? null : await this.files.open(push.id, link);
    if (!file) throw new NotFoundError();
    if (purpose === 'download') await this.auditCapped(push, 'file_download', client, this.eventsOf(push, 'push.file_downloaded', this.clock.now()));
    return file;
  }

  /** Expires a push at the request of its owner, or of a viewer when the push allows it. */
  async destroy(urlToken: string, passphrase: string | undefined, client: ClientInfo, caller?: AuthenticatedUser): Promise<PushResponse> {
    const push = await this.findActiveOrExpired(urlToken);
    const owner = isOwner(push, caller);
    if (!owner && !push.deletableByViewer) {
      throw caller ? new ForbiddenError(NOT_DELETABLE) : new UnauthenticatedError(NOT_DELETABLE);
    }
    if (!push.expired) {
      if (!owner) await this.checkPassphrase(push, passphrase, client);
      const now = this.clock.now();
      const then = [this.audit.entry(push.id, 'expire', client), ...this.eventsOf({ ...push, expired: true }, 'push.expired', now, owner ? 'owner' : 'viewer')];
      if (await this.repository.expire(push.id, now, true, then)) {
        await this.destroyFiles(push);
        this.metrics.expired('deleted');
      }
    }
    return mapPush(await this.findActiveOrExpired(urlToken), this.clock.now(), this.baseUrl(client));
  }

  /** The caller's own push as its owner sees it (name and note too); someone else's is a 403, as for its audit log. */
  async ownedPush(urlToken: string, caller: AuthenticatedUser, client: ClientInfo): Promise<OwnedPushResponse> {
    const push = await this.findActiveOrExpired(urlToken);
    if (!isOwner(push, caller)) throw new ForbiddenError(NOT_YOURS);
    return mapOwnedPush(push, this.decryptNote(push), this.clock.now(), this.baseUrl(client));
  }

  async auditLog(urlToken: string, page: number, caller: AuthenticatedUser): Promise<AuditLogResponse> {
    const push = await this.repository.findByToken(urlToken);
    if (!push) throw new NotFoundError();
    if (!isOwner(push, caller)) throw new ForbiddenError(NOT_YOURS);
    return this.audit.page(push.id, page);
  }

  /** The caller's own pushes, newest first; elapsed ones are expired first so both lists agree with retrieval. */
  async list(caller: AuthenticatedUser, expired: boolean, page: number, client: ClientInfo): Promise<Page<OwnedPushResponse>> {
    const now = this.clock.now();
    if (caller.hasWebhooks) await this.expireElapsedHeard(now, caller.id);
    this.metrics.expired('days', await this.repository.expireElapsedOwnedBy(caller.id, now));
    const rows = await this.repository.findOwned(caller.id, expired, (page - 1) * PAGE_SIZE, PAGE_SIZE + 1);
    const baseUrl = this.baseUrl(client);
    const { items, next } = toPage(rows, page, (n) => listUrlOf(expired, n, baseUrl));
    return { next, items: items.map((push) => mapOwnedPush(push, this.decryptNote(push), now, baseUrl)) };
  }

  /** Expires every active push of a user (their account is going away); returns how many. */
  async expireAllOwnedBy(userId: number): Promise<number> {
    const withFiles = await this.repository.filePushIdsOwnedBy(userId);
    const expired = await this.repository.expireAllOwnedBy(userId, this.clock.now());
    await this.files.destroyFor(withFiles);
    this.metrics.expired('user_deleted', expired);
    return expired;
  }

  /**
   * Expires, one by one with their events, up to `limit` elapsed pushes whose owners have endpoints
   * (of one owner, with `userId`); the set-based expiry then takes the rest. Returns how many.
   */
  async expireElapsedHeard(now: number, userId?: number, limit = 1000): Promise<number> {
    let expired = 0;
    for (const push of await this.repository.findElapsedHeard(now, limit, userId)) {
      if (await this.expireElapsed(push, now)) expired++;
    }
    return expired;
  }

  /** The push by token, expired first if its day window has elapsed (lazy expiry). */
  private async findActiveOrExpired(urlToken: string): Promise<StoredPush> {
    const push = await this.repository.findByToken(urlToken);
    if (!push) throw new NotFoundError();
    const now = this.clock.now();
    if (push.expired || !hasElapsed(push, now)) return push;
    await this.expireElapsed(push, now);
    return (await this.repository.findByToken(urlToken)) ?? push;
  }

  private async expireElapsed(push: StoredPush, now: number): Promise<boolean> {
    if (!(await this.repository.expire(push.id, now, false, this.eventsOf({ ...push, expired: true }, 'push.expired', now, 'days')))) return false;
    await this.destroyFiles(push);
    this.metrics.expired('days');
    return true;
  }

  /** The event statements a change records: none unless the push's owner has endpoints (no cost for everyone else). */
  private eventsOf(push: PushEntity & { ownerHasWebhooks: boolean }, type: PushEventType, now: number, reason?: ExpiryReason): Statement[] {
    if (!push.ownerHasWebhooks || push.userId === null) return [];
    const data = { url_token: push.urlToken, kind: push.kind, name: push.name, ...remainingOf(push, now), expired: push.expired, ...(reason && { reason }) };
    return [this.outbox.pushEvent(type, push.userId, data, now)];
  }

  /**
   * A link mail's audit entry (status pending), its outbox row, and the count of its recipients
   * against the owner's daily limit, which undoes the transaction when they do not fit; the entry
   * is the `auditIndex`-th statement after the guard.
   */
  private linkMailStatements(
    push: PushEntity,
    pushId: (earlier: WriteResult[]) => number,
    mail: LinkMailRequest,
    owner: AuthenticatedUser,
    client: ClientInfo,
    auditIndex: number,
  ): Statement[] {
    const now = this.clock.now();
    const notifyByEmail = { recipients: mail.recipients.join(','), locale: mail.locale, status: 'pending' as const, successful_sends: '', proceed_at: null };
    return [
      this.audit.entry(pushId, 'creation_email_send', client, notifyByEmail),
      this.outbox.linkMail(
        owner.id,
        {
          recipients: mail.recipients,
          locale: mail.locale,
          url_token: push.urlToken,
          html_url: htmlUrlOf(push, mail.baseUrl),
          owner_email: owner.email,
          ...remainingOf(push, now),
          expires_at: new Date(push.expiresAt).toISOString(),
          passphrase_protected: push.passphraseProtected,
        },
        (earlier) => earlier[auditIndex + 1].insertId,
        now,
      ),
      this.outbox.countEmails(owner.id, mail.recipients.length, this.settings.mail.notifyByEmail.dailyLimit, now),
    ];
  }

  /**
   * The link mail asked for with `notify_emails_to`, or undefined when none is; faults (mail not
   * available, an anonymous creator, a bad list or locale, and with `required` no list) go to
   * `faults`, with the reference's messages. A create with a locale alone mails nobody, as in the reference.
   */
  private linkMailRequest(
    input: { notify_emails_to?: string | null; notify_emails_to_locale?: string | null },
    owner: AuthenticatedUser | undefined,
    faults: FieldFaults,
    required = false,
  ): LinkMailRequest | undefined {
    const to = input.notify_emails_to?.trim() || undefined;
    const locale = input.notify_emails_to_locale?.trim() || null;
    if (to === undefined && locale === null && !required) return undefined;
    const baseUrl = this.settings.mail.emailAvailable ? this.settings.mail.linkBaseUrl : undefined;
    if (baseUrl === undefined) {
      if (to !== undefined) faults.add('notify_emails_to', NOTIFY_MESSAGES.notAvailable);
      if (locale !== null) faults.add('notify_emails_to_locale', NOTIFY_MESSAGES.localeNotAvailable);
      return undefined;
    }
    if (!owner) {
      if (to !== undefined) faults.add('notify_emails_to', NOTIFY_MESSAGES.unknownUser);
      if (locale !== null) faults.add('notify_emails_to_locale', NOTIFY_MESSAGES.localeUnknownUser);
      return undefined;
    }
    if (locale !== null && !NOTIFY_LOCALES.has(locale)) faults.add('notify_emails_to_locale', NOTIFY_MESSAGES.locale);
    if (to === undefined) {
      if (required) faults.add('notify_emails_to', NOTIFY_MESSAGES.blank);
      return undefined;
    }
    const parsed = parseRecipients(to);
    if ('fault' in parsed) {
      faults.add('notify_emails_to', parsed.fault);
      return undefined;
    }
    return { recipients: parsed.recipients, locale, baseUrl };
  }

  private async checkPassphrase(push: StoredPush, given: string | undefined, client: ClientInfo): Promise<void> {
    if (!push.passphraseHash) return;
    const key = `push:${push.id}`;
    const retryAfter = await this.attempts.blockedFor(key, this.settings.passphraseAttemptsPerMinute);
    if (retryAfter > 0) throw new TooManyRequestsError(TOO_MANY_ATTEMPTS, retryAfter);
    if (given !== undefined && (await this.hasher.verify(push.passphraseHash, given))) return;
    await this.attempts.recordFailure(key);
    this.metrics.passphraseFailed();
    await this.auditCapped(push, 'failed_passphrase', client, this.eventsOf(push, 'push.passphrase_failed', this.clock.now()));
    throw new PassphraseRequiredError();
  }

  /**
   * Entries anyone holding the link can cause over and over (failures, downloads) are audited only
   * while the push is under its entry cap, so hammering a link can grow neither the table nor
   * the owner's notifications (`events`).
   */
  private async auditCapped(push: PushEntity, kind: 'failed_view' | 'failed_passphrase' | 'file_download', client: ClientInfo, events: Statement[]): Promise<void> {
    await this.repository.countAuditEntry(push.id, this.settings.auditMaxEntriesPerPush, [this.audit.entry(push.id, kind, client), ...events]);
  }

  /** A viewed file push's files, with fresh links; other kinds have none. */
  private filesOf(push: PushEntity): Promise<AttachedFile[]> {
    return push.kind === 'file' ? this.files.listFor(push.id) : Promise.resolve([]);
  }

  private async destroyFiles(push: PushEntity): Promise<void> {
    if (push.kind === 'file') await this.files.destroyFor([push.id]);
  }

  private decryptPayload(push: PushEntity): string | null {
    return push.payload === null ? null : this.cipher.decrypt(push.payload, `payload:${push.urlToken}`);
  }

  private decryptNote(push: PushEntity): string | null {
    return push.note === null ? null : this.cipher.decrypt(push.note, `note:${push.urlToken}`);
  }

  /**
   * Applies the kind's settings to the creator's choices. Every field at fault is reported at once,
   * in one 422 with the type errors the validation pipe left on the input (fieldErrorsOf).
   */
  private creationRules(input: PushInput, withFiles: boolean, owner: AuthenticatedUser | undefined) {
    const faults = new FieldFaults(fieldErrorsOf(input));
    // The kind decides every other rule: when it cannot be told, they cannot be judged.
    if (faults.has('kind') || faults.has('files')) faults.throwIfAny();
    const kind: PushKind = input.kind ?? (withFiles ? 'file' : 'text');
    const rules = this.settings.kinds[kind];
    if (!rules.enabled) faults.add('kind', DISABLED_MESSAGES[kind]);
    if (withFiles !== (kind === 'file')) faults.add('files', withFiles ? 'Files can only be attached to file pushes.' : 'A file push needs at least one file.');
    faults.add('payload', payloadFault(kind, input.payload));
    const lifetime = lifetimeOf(input, rules.expireAfterDays, this.settings.allowSubdayExpiry);
    if (typeof lifetime !== 'number') faults.add(lifetime.field, lifetime.message);
    const expireAfterViews = input.expire_after_views ?? rules.expireAfterViews.default;
    faults.add('expire_after_views', rangeFault('expire_after_views', expireAfterViews, rules.expireAfterViews));
    const linkMail = this.linkMailRequest(input, owner, faults);
    faults.throwIfAny();
    // Past the faults, the lifetime is one.
    const ms = lifetime as number;
    const option = (toggle: { enabled: boolean; default: boolean }, chosen: boolean | undefined) => toggle.enabled && (chosen ?? toggle.default);
    return {
      kind,
      lifetime: ms,
      linkMail,
      expireAfterDays: daysOf(ms),
      expireAfterViews,
      deletableByViewer: kind === 'url' ? null : option(rules.deletableByViewer, input.deletable_by_viewer),
      retrievalStep: option(rules.retrievalStep, input.retrieval_step),
    } satisfies Partial<NewPush> & { lifetime: number; linkMail?: LinkMailRequest };
  }

  private baseUrl(client: ClientInfo): string {
    return publicBaseUrl(this.settings, client);
  }
}

/** Why a payload is refused for this kind, if it is. */
function payloadFault(kind: PushKind, payload: string | undefined): string | undefined {
  if (kind === 'file') return undefined;
  if (payload === undefined || payload.trim() === '') return 'Payload is required.';
  if (kind === 'qr' && characterCount(payload, QR_PAYLOAD_MAX) > QR_PAYLOAD_MAX) return `Payload is too long (maximum is ${QR_PAYLOAD_MAX} characters).`;
  if (kind === 'url' && !isWebUrl(payload)) return 'Payload must be an absolute http or https URL.';
  return undefined;
}

type Fault = { field: string; message: string };

/**
 * The push's lifetime in milliseconds, or why it is refused: `expire_after_days`, or
 * `expire_after_duration` (the reference CLI's choice of lifetime) when given; both together must
 * agree. A lifetime under a day counts as 1 day against the kind's range, as `expire_after_days`
 * reports it.
 */
function lifetimeOf(input: PushInput, range: Range, allowSubday: boolean): number | Fault {
  const duration = input.expire_after_duration ?? undefined;
  const days = input.expire_after_days ?? undefined;
  if (duration === undefined) {
    const chosen = days ?? range.default;
    const message = rangeFault('expire_after_days', chosen, range);
    return message === undefined ? chosen * DAY_MS : { field: 'expire_after_days', message };
  }
  const field = 'expire_after_duration';
  const lifetime = LIFETIME_BY_DURATION.get(duration);
  if (lifetime === undefined || (lifetime < DAY_MS && !allowSubday)) {
    return { field, message: `Expire after duration must be one of ${describeDurations(allowSubday)}.` };
  }
  const durationDays = daysOf(lifetime);
  if (days !== undefined && days !== durationDays) {
    return { field, message: `Expire after duration ${duration} means ${describeLifetime(lifetime)}, but expire after days is ${days}: send one of them.` };
  }
  if (durationDays < range.min || durationDays > range.max) {
    return { field, message: `Expire after duration ${duration} (${describeLifetime(lifetime)}) is outside the allowed ${range.min} to ${range.max} days.` };
  }
  return lifetime;
}

function rangeFault(field: 'expire_after_days' | 'expire_after_views', value: number, range: Range): string | undefined {
  return value < range.min || value > range.max ? `${humanize(field)} must be between ${range.min} and ${range.max}.` : undefined;
}

/** A JSON body's file, as a stream like a multipart part's. */
function decodeJsonFile(file: JsonFileInput): IncomingFile {
  return { filename: file.filename, contentType: file.content_type ?? '', stream: Readable.from([Buffer.from(file.data, 'base64')]) };
}

function failedRetrievalOutcome(error: unknown): RetrievalOutcome | undefined {
  if (error instanceof NotFoundError) return 'not_found';
  if (error instanceof PassphraseRequiredError) return 'passphrase_failed';
  if (error instanceof TooManyRequestsError) return 'rate_limited';
  return undefined;
}

function isOwner(push: PushEntity, caller: AuthenticatedUser | undefined): boolean {
  return caller !== undefined && push.userId === caller.id;
}
