import type { PushEvent } from '@app/events';

/** The url_token's characters every body carries: enough to tell pushes apart, as the owner mails show them, and nothing that opens one. */
export const URL_TOKEN_PREFIX_LENGTH = 8;

/**
 * The body an endpoint receives for an event as the outbox keeps it: the event with
 * `data.url_token_prefix`, and the full `data.url_token` only for an endpoint whose owner opted
 * in. The full token opens the secret; a receiver, its queues and its logs are third parties.
 */
export function webhookBody(stored: string, includeUrlToken: boolean): string {
  const event = JSON.parse(stored) as PushEvent;
  const { url_token: urlToken, ...data } = event.data;
  return JSON.stringify({ ...event, data: { url_token_prefix: urlToken.slice(0, URL_TOKEN_PREFIX_LENGTH), ...(includeUrlToken && { url_token: urlToken }), ...data } });
}
