import { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { AuditLogResponse, AuditService } from '@app/audit';
import { type AuthenticatedUser, isOwner } from '@app/auth';
import {
  ClientInfo, Clock, ForbiddenError, NotFoundError, Page, PAGE_SIZE, PassphraseRequiredError, publicBaseUrl, toPage, TooManyRequestsError,
  UnauthenticatedError, ValidationFailedError,
} from '@app/common';
import { InjectSettings, Settings } from '@app/config';
import { FieldCipher, PassphraseHasher, randomToken } from '@app/crypto';
import { Statement } from '@app/database';
import { type AttachedFile, FileAttachments, type IncomingFile, type StoredFile, UploadBatch } from '@app/files';
import { Metrics, RetrievalOutcome } from '@app/metrics';
import { FailedAttempts } from '@app/rate-limit';
import { anonymousRefusal, creationRules, DISABLED_MESSAGES, type RequestedPush } from './creation-rules';
import { JsonFileInput, PushInput } from './dto/create-push.dto';
import { htmlUrlOf, listUrlOf, mapOwnedPush, mapPush, mapRetrievedPush, OwnedPushResponse, PreviewResponse, PushResponse, RetrievedPushResponse } from './dto/push-response.dto';
import { expiresAtFor } from './expiry';
import { LinkMailQueue, type LinkMailRequest } from './link-mail-queue';
import { LinkMails } from './link-mails';
import { checkPushOwner } from './ownership';
import { PushEvents } from './push-events';
import { PushExpiry } from './push-expiry';
import { PushEntity } from './push.entity';
import { NewPush, PushesRepository, StoredPush } from './pushes.repository';
import { NOTIFY_MESSAGES } from './notify-emails';

const NOT_DELETABLE = 'That push is not deletable by viewers.';
const TOO_MANY_ATTEMPTS = 'Too many failed passphrase attempts. Try again later.';

/**
 * The push lifecycle: creation, counted retrieval, preview, deletion and the owner's views. The
 * rules of creating are creation-rules.ts's, link mails LinkMails', and expiry PushExpiry's.
 */
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
    private readonly events: PushEvents,
    private readonly expiry: PushExpiry,
    private readonly linkMails: LinkMails,
    private readonly linkMailQueue: LinkMailQueue,
  ) {}

  /**
   * Who may create: anyone (unless anonymous use is off, which the API guard enforces), but some
   * pushes need an owner (anonymousRefusal). Checked before anything else about a create, by its
   * route's guard (CreatesPush), also while the kind is disabled.
   */
  checkCreator(push: RequestedPush, owner?: AuthenticatedUser): void {
    const refusal = owner ? undefined : anonymousRefusal(push, this.settings);
    if (refusal) throw new UnauthenticatedError(refusal);
  }

  /** One file of a multipart create (its creator checked), stored encrypted as it streams in. */
  async receiveFile(uploads: UploadBatch, file: IncomingFile): Promise<void> {
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
    const urlToken = randomToken();
    const passphrase = input.passphrase?.trim() ? input.passphrase : undefined;
    const now = this.clock.now();
    let linkMail: LinkMailRequest | undefined;
    const { lifetime, ...rules } = creationRules(input, withFiles, this.settings, (faults) => (linkMail = this.linkMailQueue.request(input, owner, faults)));
    if (linkMail) await this.linkMailQueue.prepare(owner!);
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
    let echo = {};
    const push = await this.repository.insert(newPush, (batch, pushId) => {
      batch.add(this.audit.entry(pushId, 'creation', client), 'creation audit entry');
      if (linkMail) echo = this.linkMails.add(batch, pushId, created, linkMail, owner!, client, now);
      batch.addAll(this.events.of({ ...created, ownerHasWebhooks: owner?.hasWebhooks ?? false }, 'push.created', now));
    });
    // Only the daily limit of link mails can refuse the insert (Outbox.countEmails).
    if (!push) throw ValidationFailedError.of('base', NOTIFY_MESSAGES.dailyLimit);
    if (withFiles) await this.files.attach(push.id, uploads, push.expiresAt);
    this.metrics.pushCreated(push.kind);
    return { ...mapOwnedPush(push, input.note ?? null, now, this.baseUrl(client)), ...echo };
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
      const push = await this.expiry.findActiveOrExpired(urlToken);
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
      // The owner's retrievals, and an administrator's (the reference's rule), are audited but never counted.
      const uncounted = isOwner(push, caller) ? 'owner_view' : caller?.admin ? 'admin_view' : undefined;
      if (uncounted) {
        const entry = this.audit.entry(push.id, uncounted, client, uncounted === 'admin_view' ? { admin: caller!.email } : undefined);
        await this.repository.countAuditEntry(push.id, undefined, (batch) => batch.add(entry));
        this.metrics.retrieval(uncounted);
        return mapRetrievedPush(push, this.decryptPayload(push), await this.filesOf(push), now, this.baseUrl(client));
      }
      const viewed = { ...push, viewCount: push.viewCount + 1, updatedAt: now };
      const lastView = viewed.viewCount >= push.expireAfterViews;
      const then = [
        this.audit.entry(push.id, 'view', client),
        ...this.events.of(viewed, 'push.viewed', now),
        ...(lastView ? this.events.of({ ...viewed, expired: true }, 'push.expired', now, 'views') : []),
      ];
      if (await this.repository.claimView(push, now, (batch) => batch.addAll(then))) {
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
    return mapPush(await this.expiry.findActiveOrExpired(urlToken), this.clock.now(), this.baseUrl(client));
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
    const push = await this.expiry.findActiveOrExpired(urlToken);
    const usedUp = !push.deleted && push.viewCount >= push.expireAfterViews;
    const file = push.expired && !usedUp ? null : await this.files.open(push.id, link);
    if (!file) throw new NotFoundError();
    if (purpose === 'download') await this.auditCapped(push, 'file_download', client, this.events.of(push, 'push.file_downloaded', this.clock.now()));
    return file;
  }

  /** Expires a push at the request of its owner, or of a viewer when the push allows it. */
  async destroy(urlToken: string, passphrase: string | undefined, client: ClientInfo, caller?: AuthenticatedUser): Promise<PushResponse> {
    const push = await this.expiry.findActiveOrExpired(urlToken);
    const owner = isOwner(push, caller);
    if (!owner && !push.deletableByViewer) {
      throw caller ? new ForbiddenError(NOT_DELETABLE) : new UnauthenticatedError(NOT_DELETABLE);
    }
    if (!push.expired) {
      if (!owner) await this.checkPassphrase(push, passphrase, client);
      await this.expiry.delete(push, owner, client);
    }
    return mapPush(await this.expiry.findActiveOrExpired(urlToken), this.clock.now(), this.baseUrl(client));
  }

  /** The caller's own push as its owner sees it (name and note too); someone else's is a 403, as for its audit log. */
  async ownedPush(urlToken: string, caller: AuthenticatedUser, client: ClientInfo): Promise<OwnedPushResponse> {
    const push = await this.expiry.findActiveOrExpired(urlToken);
    checkPushOwner(push, caller);
    return mapOwnedPush(push, this.decryptNote(push), this.clock.now(), this.baseUrl(client));
  }

  async auditLog(urlToken: string, page: number, caller: AuthenticatedUser): Promise<AuditLogResponse> {
    const push = await this.repository.findByToken(urlToken);
    if (!push) throw new NotFoundError();
    checkPushOwner(push, caller);
    return this.audit.page(push.id, page);
  }

  /** The caller's own pushes, newest first; elapsed ones are expired first so both lists agree with retrieval. */
  async list(caller: AuthenticatedUser, expired: boolean, page: number, client: ClientInfo): Promise<Page<OwnedPushResponse>> {
    const now = this.clock.now();
    await this.expiry.expireElapsedOwnedBy(caller, now);
    const rows = await this.repository.findOwned(caller.id, expired, (page - 1) * PAGE_SIZE, PAGE_SIZE + 1);
    const baseUrl = this.baseUrl(client);
    const { items, next } = toPage(rows, page, (n) => listUrlOf(expired, n, baseUrl));
    return { next, items: items.map((push) => mapOwnedPush(push, this.decryptNote(push), now, baseUrl)) };
  }

  private async checkPassphrase(push: StoredPush, given: string | undefined, client: ClientInfo): Promise<void> {
    if (!push.passphraseHash) return;
    const key = `push:${push.id}`;
    // Counted before it is tried, so that guesses sent all at once cannot all be tried; given back when right.
    const retryAfter = await this.attempts.take(key, this.settings.passphraseAttemptsPerMinute);
    if (retryAfter > 0) throw new TooManyRequestsError(TOO_MANY_ATTEMPTS, retryAfter);
    if (given !== undefined && (await this.hasher.verify(push.passphraseHash, given))) return this.attempts.giveBack(key);
    this.metrics.passphraseFailed();
    await this.auditCapped(push, 'failed_passphrase', client, this.events.of(push, 'push.passphrase_failed', this.clock.now()));
    throw new PassphraseRequiredError();
  }

  /**
   * Entries anyone holding the link can cause over and over (failures, downloads) are audited only
   * while the push is under its entry cap, so hammering a link can grow neither the table nor
   * the owner's notifications (`events`).
   */
  private async auditCapped(push: PushEntity, kind: 'failed_view' | 'failed_passphrase' | 'file_download', client: ClientInfo, events: Statement[]): Promise<void> {
    await this.repository.countAuditEntry(push.id, this.settings.auditMaxEntriesPerPush, (batch) => batch.addAll([this.audit.entry(push.id, kind, client), ...events]));
  }

  /** A viewed file push's files, with fresh links; other kinds have none. */
  private filesOf(push: PushEntity): Promise<AttachedFile[]> {
    return push.kind === 'file' ? this.files.listFor(push.id) : Promise.resolve([]);
  }

  private decryptPayload(push: PushEntity): string | null {
    return push.payload === null ? null : this.cipher.decrypt(push.payload, `payload:${push.urlToken}`);
  }

  private decryptNote(push: PushEntity): string | null {
    return push.note === null ? null : this.cipher.decrypt(push.note, `note:${push.urlToken}`);
  }

  private baseUrl(client: ClientInfo): string {
    return publicBaseUrl(this.settings, client);
  }
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
