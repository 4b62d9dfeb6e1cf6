import { EnvReader, isCidr } from './env-reader';

/** Where webhooks may be delivered, and how long a receiver may take. */
export interface WebhookSettings {
  /** Plain-http receivers, for development: in production a webhook's body and signature travel over https only. */
  allowHttp: boolean;
  /**
   * Exceptions to the refusal of private, loopback, link-local and metadata addresses: host names
   * (lower-case, matched against the URL's host) and IP addresses or CIDR ranges (matched against
   * the addresses a host resolves to), e.g. a receiver inside the cluster.
   */
  allowedHosts: string[];
  /** The whole of one delivery attempt (DNS, connect, TLS, the answer): a slow receiver cannot hold the worker. */
  timeoutMs: number;
}

/** A DNS host name: dot-separated labels of letters, digits and inner hyphens. */
const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** Digits and dots only is a mistyped address (999.1.1.1), never a name a URL could carry. */
function isHostName(value: string): boolean {
  return HOST_NAME.test(value) && !/^[\d.]+$/.test(value);
}

export function readWebhookSettings(read: EnvReader): WebhookSettings {
  const expectation = 'must be comma-separated host names, IP addresses or CIDR ranges';
  return {
    allowHttp: read.bool('PWP__WEBHOOKS__ALLOW_HTTP', false),
    allowedHosts: read.list('PWP__WEBHOOKS__ALLOWED_HOSTS', (v) => isCidr(v) || isHostName(v), expectation).map((v) => v.toLowerCase()),
    timeoutMs: read.int('PWP__WEBHOOKS__TIMEOUT_SECONDS', 10, 1, 60) * 1000,
  };
}
