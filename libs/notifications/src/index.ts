/**
 * Notifications: telling people what happened to pushes, outside the request that did it. So far
 * the webhook channel's pieces: Standard Webhooks signing, the destination policy that keeps a
 * webhook from reaching private addresses, and the sender that delivers one attempt safely.
 */
export { newWebhookSecret, signWebhook, type SignedMessage, type WebhookSignatureHeaders } from './webhooks/webhook-signature';
export { isRefusedAddress, MAX_WEBHOOK_URL_LENGTH, refusedWebhookUrl } from './webhooks/webhook-destination';
export {
  type DeliveryResult,
  type ResolveHost,
  type WebhookRequest,
  WebhookSender,
  type WebhookSenderOptions,
} from './webhooks/webhook-sender';
