import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * The headers a Standard Webhooks receiver verifies (https://www.standardwebhooks.com). A type
 * rather than an interface, so it can be passed as any `Record<string, string>` of headers.
 */
export type WebhookSignatureHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

export interface SignedMessage {
  /** The same for every attempt at one message, so receivers can drop repeats (delivery is at least once). */
  id: string;
  /** When this attempt is made: receivers refuse timestamps far from their clock, which limits replays. */
  timestamp: Date;
  /** Exactly the bytes sent: the signature covers them as they are. */
  body: string;
  /** The endpoint's secret, as shown to its owner (`whsec_<base64>`). */
  secret: string;
}

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

/** A new endpoint secret in the form the specification shows and its libraries accept: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/**
 * The three headers of a signed message: `webhook-signature` is `v1,` and the base64
 * HMAC-SHA256, keyed with the secret's decoded bytes, of `id.timestamp.body`. Signed by the
 * specification's own library, so our messages are what its verifiers expect.
 */
export function signWebhook({ id, timestamp, body, secret }: SignedMessage): WebhookSignatureHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, timestamp, body),
  };
}
