import { isCidr, Reader, SettingsError } from './env-reader';
import { flag, group, list } from './setting';

const PROXIES = {
  check: { valid: isCidr, expectation: 'must be IP addresses or CIDR ranges separated by commas or spaces' },
  separator: /[\s,]+/,
  unset: 'nobody trusted (the Helm chart: the private ranges)',
};

export const PROXY = group({
  title: 'Proxies',
  intro:
    'The reverse proxies whose X-Forwarded-For, -Proto and -Host are believed: for the client address of rate limits, sign-in lockouts and the audit log, ' +
    "and for https links and Secure __Host- cookies. TRUST_PROXY and the reference's PWP__TRUSTED_PROXIES are both read, their lists joined. " +
    '0.0.0.0/0 means every IPv4 peer, ::/0 every peer. See docs/operations.md, "Behind a proxy or ingress".',
  settings: {
    trustProxy: list({
      name: 'TRUST_PROXY',
      ...PROXIES,
      meaning: 'IP addresses and CIDR ranges (commas or spaces) of the trusted proxies.',
    }),
    trustedProxies: list({
      name: 'PWP__TRUSTED_PROXIES',
      ...PROXIES,
      meaning: "The reference's name for the same list; joined with TRUST_PROXY.",
    }),
    forceSsl: flag({
      name: 'FORCE_SSL',
      default: false,
      meaning:
        'true: https only. Plain-http GET/HEAD are redirected to https (301), other methods refused (403); /healthz, /readyz and /metrics stay on http. Needs TRUST_PROXY (https is known from X-Forwarded-Proto).',
    }),
  },
});

/** Both lists, as one without repeats. */
export function readTrustedProxies(read: Reader): string[] {
  return [...new Set([...read(PROXY.settings.trustProxy), ...read(PROXY.settings.trustedProxies)])];
}

// The service speaks plain HTTP: it learns that a request came over https only from a trusted
// proxy's X-Forwarded-Proto, so without one FORCE_SSL would redirect every request, forever.
export function checkForceSslHasProxy(forceSsl: boolean, trustedProxies: readonly string[]): void {
  if (forceSsl && trustedProxies.length === 0) {
    throw new SettingsError(
      'Invalid setting FORCE_SSL: needs TRUST_PROXY (or PWP__TRUSTED_PROXIES) naming the TLS-terminating proxy, whose X-Forwarded-Proto says which requests came over https.',
    );
  }
}
