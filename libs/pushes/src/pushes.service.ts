import { Injectable } from '@nestjs/common';
import { AuditService } from '@app/audit';
import {
  characterCount,
  ClientInfo,
  Clock,
  DAY_MS,
  humanize,
  NotFoundError,
  PassphraseRequiredError,
  TooManyRequestsError,
  UnauthenticatedError,
  ValidationFailedError,
} from '@app/common';
import { InjectSettings, PushKind, Range, Settings } from '@app/config';
import { FieldCipher, PassphraseHasher, randomToken } from '@app/crypto';
import { PushInput } from './dto/create-push.dto';
import {
  mapOwnedPush,
  mapPush,
  mapRetrievedPush,
  OwnedPushResponse,
  PreviewResponse,
  PushResponse,
  RetrievedPushResponse,
  htmlUrlOf,
} from './dto/push-response.dto';
import { PassphraseAttempts } from './passphrase-attempts';
import { PushEntity } from './push.entity';
import { NewPush, PushesRepository } from './pushes.repository';

const QR_PAYLOAD_MAX = 1024;
const DISABLED_MESSAGES: Record<PushKind, string> = {
  text: 'Text pushes are disabled.',
  file: 'File pushes are disabled.',
  url: 'URL pushes are disabled.',
  qr: 'QR code pushes are disabled.',
};
const NOT_DELETABLE = 'That push is not deletable by viewers.';
const TOO_MANY_ATTEMPTS = 'Too many failed passphrase attempts. Try again later.';

/** The push lifecycle: creation rules, counted retrieval, preview and deletion. */
@Injectable()
export class PushesService {
  constructor(
    private readonly repository: PushesRepository,
    private readonly audit: AuditService,
    private readonly cipher: FieldCipher,
    private readonly hasher: PassphraseHasher,
    private readonly attempts: PassphraseAttempts,
    private readonly clock: Clock,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  async create(input: PushInput, client: ClientInfo): Promise<OwnedPushResponse> {
    const urlToken = randomToken();
    const passphrase = input.passphrase?.trim() ? input.passphrase : undefined;
    const now = this.clock.now();
    const rules = this.creationRules(input);
    const push = await this.repository.insert({
      ...rules,
      urlToken,
      name: input.name ?? null,
      payload: input.payload === undefined ? null : this.cipher.encrypt(input.payload, `payload:${urlToken}`),
      note: input.note ? this.cipher.encrypt(input.note, `note:${urlToken}`) : null,
      passphraseHash: passphrase === undefined ? null : await this.hasher.hash(passphrase),
      passphraseProtected: passphrase !== undefined,
      expiresAt: now + rules.expireAfterDays * DAY_MS,
      createdAt: now,
      updatedAt: now,
    });
    await this.audit.record(push.id, 'creation', client);
    return mapOwnedPush(push, input.note ?? null, now, this.baseUrl(client));
  }

  /**
   * Counted retrieval. The view is claimed atomically before anything is decrypted; a lost race
   * (another request changed the push since it was read) simply reads the push again.
   */
  async retrieve(urlToken: string, passphrase: string | undefined, client: ClientInfo): Promise<RetrievedPushResponse> {
    let passphraseChecked = false;
    for (;;) {
      const push = await this.findActiveOrExpired(urlToken);
      const now = this.clock.now();
      if (push.expired) {
        await this.audit.record(push.id, 'failed_view', client);
        return mapRetrievedPush(push, null, now, this.baseUrl(client));
      }
      if (!passphraseChecked) {
        await this.checkPassphrase(push, passphrase, client);
        passphraseChecked = true;
      }
      if (await this.repository.claimView(push, now)) {
        const payload = push.payload === null ? null : this.cipher.decrypt(push.payload, `payload:${push.urlToken}`);
        await this.audit.record(push.id, 'view', client);
        const viewed = { ...push, viewCount: push.viewCount + 1, updatedAt: now };
        return mapRetrievedPush(viewed, payload, now, this.baseUrl(client));
      }
    }
  }

  async preview(urlToken: string, client: ClientInfo): Promise<PreviewResponse> {
    const push = await this.repository.findByToken(urlToken);
    if (!push) throw new NotFoundError();
    return { url: htmlUrlOf(push, this.baseUrl(client)) };
  }

  /** Expires a push on request of a viewer, when the push allows it (the owner path comes with accounts). */
  async destroy(urlToken: string, passphrase: string | undefined, client: ClientInfo): Promise<PushResponse> {
    const push = await this.findActiveOrExpired(urlToken);
    if (!push.deletableByViewer) throw new UnauthenticatedError(NOT_DELETABLE);
    if (!push.expired) {
      await this.checkPassphrase(push, passphrase, client);
      if (await this.repository.expire(push.id, this.clock.now(), true)) {
        await this.audit.record(push.id, 'expire', client);
      }
    }
    return mapPush(await this.findActiveOrExpired(urlToken), this.clock.now(), this.baseUrl(client));
  }

  /** The push by token, expired first if its day window has elapsed (lazy expiry). */
  private async findActiveOrExpired(urlToken: string): Promise<PushEntity> {
    const push = await this.repository.findByToken(urlToken);
    if (!push) throw new NotFoundError();
    const now = this.clock.now();
    if (push.expired || now < push.expiresAt) return push;
    await this.repository.expire(push.id, now, false);
    return (await this.repository.findByToken(urlToken)) ?? push;
  }

  private async checkPassphrase(push: PushEntity, given: string | undefined, client: ClientInfo): Promise<void> {
    if (!push.passphraseHash) return;
    const key = `push:${push.id}`;
    const retryAfter = await this.attempts.blockedFor(key, this.settings.passphraseAttemptsPerMinute);
    if (retryAfter > 0) throw new TooManyRequestsError(TOO_MANY_ATTEMPTS, retryAfter);
    if (given !== undefined && (await this.hasher.verify(push.passphraseHash, given))) return;
    await this.attempts.recordFailure(key);
    await this.audit.record(push.id, 'failed_passphrase', client);
    throw new PassphraseRequiredError();
  }

  /** Applies the kind's settings to the creator's choices; breaking a rule is a 422 naming the field. */
  private creationRules(input: PushInput) {
    const kind: PushKind = input.kind ?? (input.files?.length ? 'file' : 'text');
    const rules = this.settings.kinds[kind];
    if (!rules.enabled) throw ValidationFailedError.of('kind', DISABLED_MESSAGES[kind]);
    this.checkPayload(kind, input.payload);
    const limit = (field: 'expire_after_days' | 'expire_after_views', range: Range) => {
      const value = input[field] ?? range.default;
      if (value < range.min || value > range.max) {
        throw ValidationFailedError.of(field, `${humanize(field)} must be between ${range.min} and ${range.max}.`);
      }
      return value;
    };
    const option = (toggle: { enabled: boolean; default: boolean }, chosen: boolean | undefined) => toggle.enabled && (chosen ?? toggle.default);
    return {
      kind,
      expireAfterDays: limit('expire_after_days', rules.expireAfterDays),
      expireAfterViews: limit('expire_after_views', rules.expireAfterViews),
      deletableByViewer: kind === 'url' ? null : option(rules.deletableByViewer, input.deletable_by_viewer),
      retrievalStep: option(rules.retrievalStep, input.retrieval_step),
    } satisfies Partial<NewPush>;
  }

  private checkPayload(kind: PushKind, payload: string | undefined): void {
    if (kind === 'file') return;
    if (payload === undefined || payload.trim() === '') throw ValidationFailedError.of('payload', 'Payload is required.');
    if (kind === 'qr' && characterCount(payload, QR_PAYLOAD_MAX) > QR_PAYLOAD_MAX) {
      throw ValidationFailedError.of('payload', `Payload is too long (maximum is ${QR_PAYLOAD_MAX} characters).`);
    }
    if (kind === 'url' && !isWebUrl(payload)) {
      throw ValidationFailedError.of('payload', 'Payload must be an absolute http or https URL.');
    }
  }

  private baseUrl(client: ClientInfo): string {
    return this.settings.overrideBaseUrl ?? client.baseUrl;
  }
}

function isWebUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}
