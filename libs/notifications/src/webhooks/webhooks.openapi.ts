import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponse, ApiJsonResponse, ApiNotFound, ApiServiceUnavailable, ApiTooManyRequests, ApiValidationFailed, WWW_AUTHENTICATE_HEADER } from '@app/common';
import { DeliveriesResponse, WebhookResponse, WebhookWithSecretResponse } from './dto/webhook.dto';

/**
 * The OpenAPI description of the webhooks endpoints, one composite decorator per handler. Every
 * endpoint needs an API token and sees only the caller's own endpoints.
 */

const Tag = () => ApiTags('webhooks');

const WebhookId = () => ApiParam({ name: 'id', description: "The endpoint's id, as create returned it.", schema: { type: 'string' }, example: 'wh_9fQ2kLm3Xz' });

const Common = (operationId: string, summary: string, description: string) =>
  applyDecorators(
    Tag(),
    ApiOperation({ operationId, summary, description }),
    ApiErrorResponse(401, 'No API token, or one that is unknown, revoked or blank.', { headers: WWW_AUTHENTICATE_HEADER, example: 'Invalid or revoked API token.' }),
    ApiTooManyRequests(),
    ApiServiceUnavailable(),
  );

const NOT_YOURS = 'No endpoint of yours has this id.';

export const ApiCreateWebhook = () =>
  applyDecorators(
    Common(
      'createWebhook',
      'Register an endpoint for events on your pushes',
      'Events are signed as the Standard Webhooks specification says (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256>`) with the secret this answer shows once, ' +
        'and delivered at least once (deduplicate by `webhook-id`), with retries for PWP__NOTIFICATIONS__RETRY_FOR_SECONDS. The body is `{id, type, timestamp, data}`: the first 8 characters of the push\'s url_token ' +
        '(`url_token_prefix`; the full `url_token` too only with `include_url_token: true`), its kind, name, views and days remaining, whether it expired and why; never its payload, passphrase, note or file names. ' +
        'An endpoint that keeps failing is paused, then disabled (see `disabled_at`). At most 10 endpoints per user.',
    ),
    ApiJsonResponse(201, { type: WebhookWithSecretResponse, description: 'Registered; the secret is shown this once.' }),
    ApiValidationFailed('The URL is refused (scheme, a private or metadata address, `mailto:` someone else), the events are unknown or none, or you have 10 endpoints already.'),
  );

export const ApiListWebhooks = () =>
  applyDecorators(
    Common('listWebhooks', 'Your endpoints', 'Oldest first; secrets are never shown again.'),
    ApiJsonResponse(200, { type: WebhookResponse, isArray: true, description: 'Your endpoints.' }),
  );

export const ApiDeleteWebhook = () =>
  applyDecorators(
    Common('deleteWebhook', 'Delete an endpoint', 'Its pending deliveries are dropped; nothing more is sent to it.'),
    WebhookId(),
    ApiResponse({ status: 204, description: 'Deleted.' }),
    ApiNotFound(NOT_YOURS),
  );

export const ApiRotateWebhookSecret = () =>
  applyDecorators(
    Common('rotateWebhookSecret', "Replace an endpoint's signing secret", 'Every attempt from now on, pending ones included, is signed with the new secret.'),
    WebhookId(),
    ApiJsonResponse(200, { type: WebhookWithSecretResponse, description: 'The endpoint with its new secret, shown this once.' }),
    ApiNotFound(NOT_YOURS),
  );

export const ApiEnableWebhook = () =>
  applyDecorators(
    Common(
      'enableWebhook',
      'Enable an endpoint again',
      'For an endpoint disabled after failing PWP__NOTIFICATIONS__DISABLE_AFTER_FAILURES times in a row: new events reach it again and its failure count starts over. ' +
        'Deliveries given up on when it was disabled stay dead. Harmless on an endpoint that is not disabled.',
    ),
    WebhookId(),
    ApiJsonResponse(200, { type: WebhookResponse, description: 'The endpoint, enabled.' }),
    ApiNotFound(NOT_YOURS),
  );

export const ApiListWebhookDeliveries = () =>
  applyDecorators(
    Common('listWebhookDeliveries', "An endpoint's recent deliveries", 'The 50 most recent, newest first: event, status, attempts, the last HTTP status and error.'),
    WebhookId(),
    ApiJsonResponse(200, { type: DeliveriesResponse, description: 'Recent deliveries.' }),
    ApiNotFound(NOT_YOURS),
  );
