import { Injectable } from '@nestjs/common';
import type { AuthenticatedUser } from '@app/auth';
import { asciiLowerCase, Clock, FieldFaults, NotFoundError, ValidationFailedError } from '@app/common';
import { InjectSettings, Settings } from '@app/config';
import { FieldCipher, randomToken } from '@app/crypto';
import { CreateWebhookInput, DeliveriesResponse, WebhookResponse, WebhookWithSecretResponse } from './dto/webhook.dto';
import { eventBits, eventTypes } from './event-bits';
import { refusedWebhookUrl } from './webhook-destination';
import { newWebhookSecret } from './webhook-signature';
import { WebhookEntity } from './webhook.entity';
import { WebhooksRepository } from './webhooks.repository';

/** Most endpoints one user may register. */
export const MAX_WEBHOOKS_PER_USER = 10;
const RECENT_DELIVERIES = 50;

/** The cipher's context for an endpoint's secret: sealed to that endpoint, so it cannot be moved to another. */
export const secretContext = (publicId: string) => `webhook-secret:${publicId}`;

/** An owner's endpoints: register (https or `mailto:` themselves), list, delete, rotate the secret, enable again, and see recent deliveries. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly repository: WebhooksRepository,
    private readonly cipher: FieldCipher,
    private readonly clock: Clock,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  async create(input: CreateWebhookInput, owner: AuthenticatedUser): Promise<WebhookWithSecretResponse> {
    const faults = new FieldFaults();
    const refused = this.refusedUrl(input.url, owner);
    faults.add('url', refused && `Url ${refused}.`);
    faults.throwIfAny();
    if ((await this.repository.countOwnedBy(owner.id)) >= MAX_WEBHOOKS_PER_USER) {
      throw ValidationFailedError.of('base', `You can register at most ${MAX_WEBHOOKS_PER_USER} webhooks.`);
    }
    const now = this.clock.now();
    const publicId = `wh_${randomToken(12)}`;
    const secret = newWebhookSecret();
    const webhook = {
      publicId,
      userId: owner.id,
      url: input.url.trim(),
      events: eventBits(input.events),
      description: input.description ?? null,
      secret: this.cipher.encrypt(secret, secretContext(publicId)),
      includeUrlToken: input.include_url_token ?? false,
      createdAt: now,
      updatedAt: now,
    };
    await this.repository.insert(webhook);
    return { ...mapWebhook(webhook), secret };
  }

  async list(owner: AuthenticatedUser): Promise<WebhookResponse[]> {
    return (await this.repository.findOwnedBy(owner.id)).map(mapWebhook);
  }

  async delete(publicId: string, owner: AuthenticatedUser): Promise<void> {
    await this.repository.delete(await this.owned(publicId, owner));
  }

  /** A new secret, effective for every attempt from now on (pending ones included). */
  async rotateSecret(publicId: string, owner: AuthenticatedUser): Promise<WebhookWithSecretResponse> {
    const webhook = await this.owned(publicId, owner);
    const secret = newWebhookSecret();
    await this.repository.replaceSecret(webhook.id, this.cipher.encrypt(secret, secretContext(publicId)), this.clock.now());
    return { ...mapWebhook(webhook), secret };
  }

  /** A disabled endpoint receives new events again, its failure count starting over; what was given up on stays dead. */
  async enable(publicId: string, owner: AuthenticatedUser): Promise<WebhookResponse> {
    const webhook = await this.owned(publicId, owner);
    const now = this.clock.now();
    await this.repository.enable(webhook.id, now);
    return mapWebhook({ ...webhook, disabledAt: null, disabledReason: null });
  }

  async deliveries(publicId: string, owner: AuthenticatedUser): Promise<DeliveriesResponse> {
    const rows = await this.repository.recentDeliveries((await this.owned(publicId, owner)).id, RECENT_DELIVERIES);
    return {
      deliveries: rows.map((row) => ({
        event: row.event,
        message_id: (JSON.parse(row.payload) as { id: string }).id,
        status: row.status as DeliveriesResponse['deliveries'][number]['status'],
        attempts: row.attempts,
        last_status_code: row.lastStatusCode,
        last_error: row.lastError,
        created_at: new Date(row.createdAt).toISOString(),
        updated_at: new Date(row.updatedAt).toISOString(),
      })),
    };
  }

  private async owned(publicId: string, owner: AuthenticatedUser): Promise<WebhookEntity> {
    const webhook = /^wh_[\w-]{1,40}$/.test(publicId) ? await this.repository.findOwned(owner.id, publicId) : null;
    if (!webhook) throw new NotFoundError();
    return webhook;
  }

  /** Why the URL cannot be registered (worded after "Url"), if it cannot: `mailto:` only to the owner's own address, and only with mail. */
  private refusedUrl(url: string, owner: AuthenticatedUser): string | undefined {
    const value = url.trim();
    if (!/^mailto:/i.test(value)) return refusedWebhookUrl(value, this.settings.webhooks);
    if (!this.settings.mail.smtp) return 'cannot be mailto: this instance has no mail (PWP__MAIL__SMTP_ADDRESS)';
    // As the account's address is stored: only ASCII letters folded (`mailto:\u212Aate@...` is not kate's).
    return asciiLowerCase(value.slice('mailto:'.length)) === owner.email ? undefined : "must be mailto: your own account's address";
  }
}

export function mapWebhook(webhook: Pick<WebhookEntity, 'publicId' | 'url' | 'events' | 'description' | 'includeUrlToken' | 'createdAt'> & Partial<WebhookEntity>): WebhookResponse {
  return {
    id: webhook.publicId,
    url: webhook.url,
    events: eventTypes(webhook.events),
    description: webhook.description,
    include_url_token: webhook.includeUrlToken,
    disabled_at: webhook.disabledAt ? new Date(webhook.disabledAt).toISOString() : null,
    disabled_reason: webhook.disabledReason ?? null,
    created_at: new Date(webhook.createdAt).toISOString(),
  };
}
