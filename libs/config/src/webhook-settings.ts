import { EnvReader, isCidr, isHostName } from './env-reader';

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

export function readWebhookSettings(read: EnvReader): WebhookSettings {
  const expectation = 'must be comma-separated host names, IP addresses or CIDR ranges';
  return {
    allowHttp: read.bool('PWP__WEBHOOKS__ALLOW_HTTP', false),
    allowedHosts: read.list('PWP__WEBHOOKS__ALLOWED_HOSTS', (v) => isCidr(v) || isHostName(v), expectation).map((v) => v.toLowerCase()),
    timeoutMs: read.int('PWP__WEBHOOKS__TIMEOUT_SECONDS', 10, 1, 60) * 1000,
  };
}
