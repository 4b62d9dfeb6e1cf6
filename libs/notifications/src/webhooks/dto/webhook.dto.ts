import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsString, MaxLength } from 'class-validator';
import { OptionalBoolean, OptionalText, ReportsFieldErrors } from '@app/common';
import { PUSH_EVENT_TYPES, type PushEventType } from '@app/events';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../deliveries/delivery.entity';

const TIME_EXAMPLE = '2026-01-01T01:00:00.000Z';
const URL_DESCRIPTION =
  'Where events go: an `https` URL (`http` only with PWP__WEBHOOKS__ALLOW_HTTP=true; private, loopback, link-local and metadata addresses refused unless PWP__WEBHOOKS__ALLOWED_HOSTS names them), or `mailto:` with your own account\'s address to get the events by mail (when the instance has mail).';

const INCLUDE_URL_TOKEN_DESCRIPTION =
  "Whether bodies carry the push's full `url_token` in `data.url_token`. By default they carry `url_token_prefix` only (its first 8 characters, as the owner mails do): " +
  'the full token opens the secret, and a receiver, its queue and its logs are third parties that would then hold a working link to every push the events tell of. ' +
  'Set it only for a receiver you trust with the secrets themselves. Mails (`mailto:`) never carry the full token.';

@ReportsFieldErrors()
export class CreateWebhookInput {
  @ApiProperty({ type: String, maxLength: 2000, description: URL_DESCRIPTION, example: 'https://hooks.example.com/pwpush' })
  @IsString({ message: 'Url must be a string.' })
  @MaxLength(2000, { message: 'Url is too long (maximum is 2000 characters).' })
  url!: string;

  @ApiProperty({ type: String, isArray: true, enum: PUSH_EVENT_TYPES, description: 'The events to send; at least one.', example: ['push.viewed', 'push.expired'] })
  @IsArray({ message: 'Events must be a list.' })
  @ArrayMinSize(1, { message: 'Events must name at least one event.' })
  @ArrayMaxSize(PUSH_EVENT_TYPES.length * 2, { message: 'Events has too many entries.' })
  @IsIn(PUSH_EVENT_TYPES, { each: true, message: `Events must each be one of ${PUSH_EVENT_TYPES.join(', ')}.` })
  events!: PushEventType[];

  @ApiPropertyOptional({ type: String, maxLength: 255, description: 'A label for you.', example: 'Security team' })
  @OptionalText(255)
  description?: string;

  @ApiPropertyOptional({ type: Boolean, default: false, description: INCLUDE_URL_TOKEN_DESCRIPTION, example: false })
  @OptionalBoolean()
  include_url_token?: boolean;
}

export class WebhookResponse {
  @ApiProperty({ type: String, description: "The endpoint's id in this API.", example: 'wh_9fQ2kLm3Xz' })
  id!: string;

  @ApiProperty({ type: String, example: 'https://hooks.example.com/pwpush' })
  url!: string;

  @ApiProperty({ type: String, isArray: true, enum: PUSH_EVENT_TYPES, example: ['push.viewed', 'push.expired'] })
  events!: PushEventType[];

  @ApiProperty({ type: String, nullable: true, example: 'Security team' })
  description!: string | null;

  @ApiProperty({ type: Boolean, description: INCLUDE_URL_TOKEN_DESCRIPTION, example: false })
  include_url_token!: boolean;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When it was disabled after failing too many times in a row (PWP__NOTIFICATIONS__DISABLE_AFTER_FAILURES): nothing is sent to it until `POST /api/v2/webhooks/{id}/enable`.',
    example: null,
  })
  disabled_at!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Why it was disabled.', example: null })
  disabled_reason!: string | null;

  @ApiProperty({ type: String, format: 'date-time', example: TIME_EXAMPLE })
  created_at!: string;
}

export class WebhookWithSecretResponse extends WebhookResponse {
  @ApiProperty({
    type: String,
    description: 'The signing secret (Standard Webhooks): shown only when the endpoint is created and when its secret is rotated. Verify `webhook-signature` with it.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  })
  secret!: string;
}

export class DeliveryResponse {
  @ApiProperty({ type: String, enum: PUSH_EVENT_TYPES, example: 'push.viewed' })
  event!: string;

  @ApiProperty({ type: String, description: 'The Standard Webhooks `webhook-id` it is sent with (the same on every attempt).', example: 'msg_2Nf8c1q0S5mX3ZbT9hWk' })
  message_id!: string;

  @ApiProperty({
    type: String,
    enum: DELIVERY_STATUSES,
    description:
      'pending (an attempt is due), delivered, or dead: given up after PWP__NOTIFICATIONS__RETRY_FOR_SECONDS, at once when the address policy refuses the destination, or when the endpoint was disabled.',
  })
  status!: DeliveryStatus;

  @ApiProperty({ type: 'integer', example: 1 })
  attempts!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: "The last attempt's HTTP status; null when none answered.", example: 200 })
  last_status_code!: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      "Why the last attempt failed, never the receiver's body: `HTTP <status>`, `redirect not followed (HTTP <status>)`, `refused: ...` (the address policy), " +
      '`no answer (connection failed or timed out)` for every failure without an HTTP answer (refused connection, timeout, TLS, DNS), or that the endpoint was disabled.',
    example: null,
  })
  last_error!: string | null;

  @ApiProperty({ type: String, format: 'date-time', example: TIME_EXAMPLE })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time', description: 'The last attempt, or the creation before any.', example: TIME_EXAMPLE })
  updated_at!: string;
}

export class DeliveriesResponse {
  @ApiProperty({ type: [DeliveryResponse], description: 'The 50 most recent, newest first.' })
  deliveries!: DeliveryResponse[];
}
