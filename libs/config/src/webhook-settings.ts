import { isCidr, isHostName, Reader } from './env-reader';
import { flag, group, integer, list } from './setting';

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

export const WEBHOOKS = group({
  title: 'Webhooks',
  settings: {
    allowHttp: flag({
      name: 'PWP__WEBHOOKS__ALLOW_HTTP',
      default: false,
      meaning: 'http:// webhook URLs (development only); https is required otherwise.',
    }),
    allowedHosts: list({
      name: 'PWP__WEBHOOKS__ALLOWED_HOSTS',
      check: { valid: (v) => isCidr(v) || isHostName(v), expectation: 'must be comma-separated host names, IP addresses or CIDR ranges' },
      unset: 'none',
      meaning:
        'Hosts, addresses or CIDR ranges webhooks may reach although private, loopback or link-local, e.g. an in-cluster receiver: hooks.internal,10.20.0.0/16.',
    }),
    timeoutSeconds: integer({
      name: 'PWP__WEBHOOKS__TIMEOUT_SECONDS',
      default: 10,
      min: 1,
      max: 60,
      unit: 'seconds',
      meaning: 'One webhook attempt, DNS to answer.',
    }),
  },
});

export function readWebhookSettings(read: Reader): WebhookSettings {
  const { allowHttp, allowedHosts, timeoutSeconds } = read.all(WEBHOOKS);
  return { allowHttp, allowedHosts: allowedHosts.map((v) => v.toLowerCase()), timeoutMs: timeoutSeconds * 1000 };
}
