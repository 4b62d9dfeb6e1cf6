import { Injectable } from '@nestjs/common';
import { AuditLogResponse, AuditService } from '@app/audit';
import { type AuthenticatedUser, checkOwner } from '@app/auth';
import {
  ClientInfo, Clock, ConflictError, FieldFaults, fieldErrorsOf, HOUR_MS, NotFoundError, Page, PAGE_SIZE, PassphraseRequiredError, publicBaseUrl, toPage,
  TooManyRequestsError, ValidationFailedError,
} from '@app/common';
import { InjectSettings, Settings } from '@app/config';
import { FieldCipher, PassphraseHasher, randomToken } from '@app/crypto';
import { FileAttachments, type IncomingFile, type StoredFile, UploadBatch } from '@app/files';
import { LinkMailQueue, type LinkMailRequest, type LinkMailTarget, NOTIFY_MESSAGES } from '@app/pushes';
import { FailedAttempts } from '@app/rate-limit';
import { closeAfterLifetime, daysRemaining, DEFAULT_CLOSE_AFTER_DURATION, describeCloseAfter } from './closing-times';
import { RequestInput, ResponseInput } from './dto/create-request.dto';
import {
  AnsweredRequestResponse, mapAnsweredRequest, mapPublicRequest, mapRequest, mapRequestFiles, PublicRequestResponse, RequestFileResponse, requestHtmlUrl, requestListUrl,
  RequestResponse,
} from './dto/request-response.dto';
import { RequestClosing } from './request-closing';
import { RequestEvents } from './request-events';
import type { RequestEntity, RequestState } from './request.entity';
import { type NewRequest, RequestsRepository, StoredRequest } from './requests.repository';
import { mapResponderView, type ResponderEntry, ResponderGrants, type ResponderView } from './responder-view';

const NOT_YOURS = "That request doesn't belong to you.";
const ANSWERED = 'This request has already been answered.';
const TOO_MANY_ATTEMPTS = 'Too many failed passphrase attempts. Try again later.';
const FILES_DISABLED = 'File attachments are disabled.';
const NO_FILES = 'This request does not take files.';
/** How long the responder's page may take between the passphrase and the answer. */
const GRANT_LIFETIME_MS = 2 * HOUR_MS;

/** The owner's lists and the states each shows. */
export const REQUEST_LISTS = { active: ['open', 'ready'], open: ['open'], ready: ['ready'], closed: ['closed'] } as const satisfies Record<string, readonly RequestState[]>;
export type RequestList = keyof typeof REQUEST_LISTS;

/**
 * Secret requests: a signed-in person asks, whoever holds the link answers once, and only the
 * requester reads the answer, until the request closes (RequestClosing) and it is destroyed.
 */
@Injectable()
export class RequestsService {
  private readonly grants: ResponderGrants;

  constructor(
    private readonly repository: RequestsRepository,
    private readonly closing: RequestClosing,
    private readonly audit: AuditService,
    private readonly cipher: FieldCipher,
    private readonly hasher: PassphraseHasher,
    private readonly attempts: FailedAttempts,
    private readonly files: FileAttachments,
    private readonly clock: Clock,
    @InjectSettings() private readonly settings: Settings,
    private readonly events: RequestEvents,
    private readonly linkMails: LinkMailQueue,
  ) {
    this.grants = new ResponderGrants(cipher, GRANT_LIFETIME_MS);
  }

  /** One file of a multipart body, stored encrypted as it streams in; files follow the file pushes' setting and limits. */
  async receiveFile(uploads: UploadBatch, file: IncomingFile): Promise<void> {
    if (!this.settings.kinds.file.enabled) throw ValidationFailedError.of('files', FILES_DISABLED);
    await uploads.add(file);
  }

  /** Creates a request, with the requester's own files already received into `uploads`; a create that fails leaves nothing. */
  async create(input: RequestInput, client: ClientInfo, owner: AuthenticatedUser, uploads = this.files.uploads()): Promise<RequestResponse> {
    try {
      return await this.insert(input, client, owner, uploads);
    } catch (error) {
      await uploads.discard();
      throw error;
    }
  }

  private async insert(input: RequestInput, client: ClientInfo, owner: AuthenticatedUser, uploads: UploadBatch): Promise<RequestResponse> {
    const faults = new FieldFaults(fieldErrorsOf(input));
    if (!faults.has('request') && !input.request?.trim()) faults.add('request', 'Request is required.');
    const duration = input.close_after_duration ?? DEFAULT_CLOSE_AFTER_DURATION;
    const lifetime = closeAfterLifetime(duration);
    if (!faults.has('close_after_duration') && lifetime === undefined) {
      faults.add('close_after_duration', `Close after duration must be one of ${describeCloseAfter()}.`);
    }
    const linkMail = this.linkMails.request(input, owner, faults);
    faults.throwIfAny();
    if (linkMail) await this.linkMails.prepare(owner);
    const urlToken = randomToken();
    const passphrase = input.passphrase?.trim() ? input.passphrase : undefined;
    const now = this.clock.now();
    const newRequest: NewRequest = {
      urlToken,
      userId: owner.id,
      message: this.cipher.encrypt(input.request!, `request-message:${urlToken}`),
      name: input.name ?? null,
      note: input.note ? this.cipher.encrypt(input.note, `request-note:${urlToken}`) : null,
      passphraseHash: passphrase === undefined ? null : await this.hasher.hash(passphrase),
      passphraseProtected: passphrase !== undefined,
      retrievalStep: input.retrieval_step ?? false,
      includeRequestor: input.include_requestor ?? false,
      responseFileAttachments: input.response_file_attachments ?? false,
      closeAfterDuration: duration,
      closeAfterAt: now + lifetime!,
      createdAt: now,
      updatedAt: now,
    };
    let echo = {};
    const request = await this.repository.insert(newRequest, (batch, requestId) => {
      batch.add(this.audit.requestEntry(requestId, 'creation', client), 'creation audit entry');
      if (linkMail) echo = this.linkMails.add(batch, linkMailTarget(newRequest, linkMail, now), linkMail, owner, now);
    });
    // Only the daily limit of link mails can refuse the insert (Outbox.countEmails).
    if (!request) throw ValidationFailedError.of('base', NOTIFY_MESSAGES.dailyLimit);
    if (uploads.count > 0) await this.files.attachToRequest(request.id, false, uploads, request.closeAfterAt);
    return { ...mapRequest(request, input.request!, input.note ?? null, now, this.baseUrl(client)), ...echo };
  }

  /**
   * Whether the caller may answer: the request is open, and the passphrase (when it has one) is
   * right, or the responder's page's `grant` (issued when it was) still good; a grant that is not
   * is refused as a missing passphrase, without counting as a guess. A multipart answer is
   * checked so before a byte of its files is stored.
   */
  async checkRespondable(urlToken: string, passphrase: string | undefined, client: ClientInfo, grant?: string): Promise<StoredRequest> {
    const request = await this.closing.find(urlToken);
    if (request.state === 'closed') throw new NotFoundError();
    if (grant === undefined) await this.checkPassphrase(request, passphrase, client);
    else if (request.passphraseHash && !this.grants.admits(request, grant, this.clock.now())) throw new PassphraseRequiredError();
    if (request.state === 'ready') throw new ConflictError(ANSWERED);
    return request;
  }

  /**
   * What the responder's page shows on a GET, from one lookup: the passphrase form before
   * anything else (whether it was answered is told only past it), that it was answered, the
   * retrieval step's button, or the request itself, opened (`view`).
   */
  async responderEntry(urlToken: string, client: ClientInfo): Promise<ResponderEntry | ResponderView> {
    const request = await this.closing.find(urlToken);
    if (request.state === 'closed') throw new NotFoundError();
    if (request.passphraseProtected) return 'passphrase';
    if (request.state === 'ready') return 'answered';
    return request.retrievalStep ? 'step' : this.shownToResponder(request, client);
  }

  /** The responder opens the request past its passphrase or retrieval step (the page's POST): checked as an answer is, then shown. */
  async openForResponder(urlToken: string, passphrase: string | undefined, client: ClientInfo): Promise<ResponderView> {
    return this.shownToResponder(await this.checkRespondable(urlToken, passphrase, client), client);
  }

  /** Audited `view`, capped as failed passphrases are, so reloading a page grows neither table nor log. */
  private async shownToResponder(request: StoredRequest, client: ClientInfo): Promise<ResponderView> {
    await this.repository.countAuditEntry(request.id, this.settings.auditMaxEntriesPerPush, (batch) => batch.add(this.audit.requestEntry(request.id, 'view', client)));
    // The passphrase was just given: the page's grant starts now.
    return this.responderView(request, request.passphraseHash ? this.grants.issue(request, this.clock.now()) : undefined);
  }

  /**
   * The responder's view of a request already checked (checkRespondable), without a new audit
   * entry: the form again after a refused answer. `grant`: the one the page already carries,
   * carried on unchanged, so that a refused answer never renews it past its lifetime.
   */
  async responderView(request: StoredRequest, grant: string | undefined): Promise<ResponderView> {
    const message = this.cipher.decrypt(request.message, `request-message:${request.urlToken}`);
    const takesFiles = request.responseFileAttachments && this.settings.kinds.file.enabled;
    return mapResponderView(request, message, takesFiles, await this.files.listForRequest(request.id, false), request.passphraseHash ? grant : undefined);
  }

  /** A multipart answer's file, once the request is known to take files. */
  async receiveResponseFile(request: StoredRequest, uploads: UploadBatch, file: IncomingFile): Promise<void> {
    if (!request.responseFileAttachments) throw ValidationFailedError.of('files', NO_FILES);
    await this.receiveFile(uploads, file);
  }

  /**
   * The one answer. Of concurrent answers exactly one wins the guarded UPDATE; the others get the
   * 409 (or the 404 when the request closed meanwhile), and their files are discarded.
   */
  async respond(urlToken: string, input: ResponseInput, passphrase: string | undefined, client: ClientInfo, uploads = this.files.uploads(), checked?: StoredRequest): Promise<PublicRequestResponse> {
    try {
      return await this.storeResponse(urlToken, input, passphrase, client, uploads, checked);
    } catch (error) {
      await uploads.discard();
      throw error;
    }
  }

  private async storeResponse(urlToken: string, input: ResponseInput, passphrase: string | undefined, client: ClientInfo, uploads: UploadBatch, checked?: StoredRequest): Promise<PublicRequestResponse> {
    const request = checked ?? (await this.checkRespondable(urlToken, passphrase, client));
    const withFiles = uploads.count > 0;
    const faults = new FieldFaults(fieldErrorsOf(input));
    if (withFiles && !request.responseFileAttachments) faults.add('files', NO_FILES);
    if (!faults.has('response') && !withFiles && !input.response?.trim()) faults.add('response', 'Response is required.');
    faults.throwIfAny();
    const now = this.clock.now();
    const ciphertext = this.cipher.encrypt(input.response ?? '', `request-response:${request.urlToken}`);
    const answered = { ...request, state: 'ready' as const, respondedAt: now, updatedAt: now };
    const then = [this.audit.requestEntry(request.id, 'response', client), ...this.events.of(answered, 'request.responded', now), ...this.events.answeredMail(request, now)];
    const won = await this.repository.respond(request.id, ciphertext, now, (batch) => batch.addAll(then));
    if (!won) {
      const now = await this.closing.find(urlToken);
      throw now.state === 'closed' ? new NotFoundError() : new ConflictError(ANSWERED);
    }
    if (withFiles) {
      await this.files.attachToRequest(request.id, true, uploads, request.closeAfterAt);
      // Closed between the answer and its files' attachment: its close destroyed none of them, so they go now.
      if ((await this.closing.find(request.urlToken)).state === 'closed') await this.files.destroyForRequests([request.id]);
    }
    return mapPublicRequest(answered, this.baseUrl(client));
  }

  /** The requester's read, with the answer and the responder's files; each read of an answer is audited (`response_view`). */
  async retrieve(urlToken: string, caller: AuthenticatedUser, client: ClientInfo): Promise<AnsweredRequestResponse> {
    return this.read(await this.ownedBy(urlToken, caller), client);
  }

  /**
   * The requester's page of a request, from one lookup: the read (audited as `retrieve`'s), their
   * own files (given at create; none once closed) and a page of its audit log, which names this read.
   */
  async ownerView(urlToken: string, caller: AuthenticatedUser, auditPage: number, client: ClientInfo): Promise<{ request: AnsweredRequestResponse; ownFiles: RequestFileResponse[]; logs: AuditLogResponse['logs'] }> {
    const request = await this.ownedBy(urlToken, caller);
    const read = await this.read(request, client);
    const ownFiles = request.state === 'closed' ? [] : mapRequestFiles(request.urlToken, await this.files.listForRequest(request.id, false), this.baseUrl(client));
    const { logs } = await this.audit.requestPage(request.id, auditPage);
    return { request: read, ownFiles, logs };
  }

  private async read(request: StoredRequest, client: ClientInfo): Promise<AnsweredRequestResponse> {
    const base = this.mapOwned(request, client);
    if (request.state !== 'ready') return mapAnsweredRequest(base, null, [], this.baseUrl(client));
    await this.repository.countAuditEntry(request.id, undefined, (batch) => batch.add(this.audit.requestEntry(request.id, 'response_view', client)));
    const response = this.cipher.decrypt(request.response!, `request-response:${request.urlToken}`);
    return mapAnsweredRequest(base, response, await this.files.listForRequest(request.id, true), this.baseUrl(client));
  }

  /** Closes the request at its owner's request: the answer and files destroyed at once. */
  async close(urlToken: string, caller: AuthenticatedUser, client: ClientInfo): Promise<RequestResponse> {
    const request = await this.ownedBy(urlToken, caller);
    if (request.state !== 'closed') await this.closing.closeByOwner(request, client);
    return this.mapOwned(await this.closing.find(urlToken), client);
  }

  async preview(urlToken: string, caller: AuthenticatedUser, client: ClientInfo): Promise<{ url: string }> {
    const request = await this.ownedBy(urlToken, caller);
    return { url: requestHtmlUrl(request.urlToken, this.baseUrl(client)) };
  }

  async auditLog(urlToken: string, page: number, caller: AuthenticatedUser): Promise<AuditLogResponse> {
    const request = await this.ownedBy(urlToken, caller);
    return this.audit.requestPage(request.id, page);
  }

  /** The caller's own requests in one list, newest first; those whose time has come are closed first, so lists agree with reads. */
  async list(caller: AuthenticatedUser, list: RequestList, page: number, client: ClientInfo): Promise<Page<RequestResponse>> {
    await this.closing.closeElapsedOwnedBy(caller.id);
    const rows = await this.repository.findOwned(caller.id, REQUEST_LISTS[list], (page - 1) * PAGE_SIZE, PAGE_SIZE + 1);
    const baseUrl = this.baseUrl(client);
    const { items, next } = toPage(rows, page, (n) => requestListUrl(list, n, baseUrl));
    return { next, items: items.map((request) => this.mapOwned(request, client)) };
  }

  /**
   * The file a download link names: links come from a read (the requester's, of the responder's
   * files) and work for their lifetime while the request is not closed. Anything else is a 404.
   */
  async openFile(urlToken: string, link: string): Promise<StoredFile> {
    const request = await this.closing.find(urlToken);
    const file = request.state === 'closed' ? null : await this.files.openForRequest(request.id, link);
    if (!file) throw new NotFoundError();
    return file;
  }

  private async ownedBy(urlToken: string, caller: AuthenticatedUser): Promise<StoredRequest> {
    const request = await this.closing.find(urlToken);
    checkOwner(request, caller, NOT_YOURS);
    return request;
  }

  private async checkPassphrase(request: StoredRequest, given: string | undefined, client: ClientInfo): Promise<void> {
    if (!request.passphraseHash) return;
    const key = `request:${request.id}`;
    // Counted before it is tried, so that guesses sent all at once cannot all be tried; given back when right.
    const retryAfter = await this.attempts.take(key, this.settings.passphraseAttemptsPerMinute);
    if (retryAfter > 0) throw new TooManyRequestsError(TOO_MANY_ATTEMPTS, retryAfter);
    if (given !== undefined && (await this.hasher.verify(request.passphraseHash, given))) return this.attempts.giveBack(key);
    // Capped, as a push's failures: hammering a link grows neither the table nor the log.
    await this.repository.countAuditEntry(request.id, this.settings.auditMaxEntriesPerPush, (batch) => batch.add(this.audit.requestEntry(request.id, 'failed_passphrase', client)));
    throw new PassphraseRequiredError();
  }

  private mapOwned(request: RequestEntity, client: ClientInfo): RequestResponse {
    const message = this.cipher.decrypt(request.message, `request-message:${request.urlToken}`);
    const note = request.note === null ? null : this.cipher.decrypt(request.note, `request-note:${request.urlToken}`);
    return mapRequest(request, message, note, this.clock.now(), this.baseUrl(client));
  }

  private baseUrl(client: ClientInfo): string {
    return publicBaseUrl(this.settings, client);
  }
}

/** What the responders' mail tells of a request: its page on the configured base, and until when it takes an answer. */
function linkMailTarget(request: NewRequest, mail: LinkMailRequest, now: number): LinkMailTarget {
  return {
    target: 'request',
    url_token: request.urlToken,
    html_url: requestHtmlUrl(request.urlToken, mail.baseUrl),
    views_remaining: 0,
    days_remaining: daysRemaining({ state: 'open', closeAfterAt: request.closeAfterAt }, now),
    expires_at: new Date(request.closeAfterAt).toISOString(),
    passphrase_protected: request.passphraseProtected,
  };
}
