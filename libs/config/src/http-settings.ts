import { isHttpUrl, Reader } from './env-reader';
import { group, integer, list, size, text } from './setting';

/** How long the server waits for a client, and how much of request bodies it holds in memory at once. */
export interface HttpSettings {
  /** The request line and headers must have arrived within this. */
  headersTimeoutMs: number;
  /** A body read into memory must have arrived within this; a file upload may not pause longer than this. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open; above the proxy's own, so the proxy closes first. */
  keepAliveTimeoutMs: number;
  /** Most bytes of request bodies being read (and held) at once by the process; more get a 503. */
  maxBodyBytesInFlight: number;
}

const MIB = 1024 * 1024;

/**
 * The defaults fit an API behind a proxy: headers come at once, JSON bodies are at most a few MiB,
 * the ingress (nginx keeps upstream connections 60 s) closes idle connections before we do, and
 * the body budget keeps 100 concurrent maximum bodies within the chart's 512 MiB (see docs/operations.md, Body limits).
 */
export const HTTP = group({
  title: 'HTTP',
  settings: {
    overrideBaseUrl: text({
      name: 'PWP__OVERRIDE_BASE_URL',
      check: { valid: isHttpUrl, expectation: 'must be an absolute http(s) URL' },
      unset: "the request's scheme and host",
      meaning: 'The base of the links in responses (html_url, json_url); also of mailed links when PWP__HOST_DOMAIN is unset.',
    }),
    headersTimeoutMs: integer({
      name: 'HTTP_HEADERS_TIMEOUT_MS',
      default: 10_000,
      min: 100,
      max: 600_000,
      unit: 'ms',
      meaning: 'How long a client may take to send the request line and headers.',
    }),
    requestTimeoutMs: integer({
      name: 'HTTP_REQUEST_TIMEOUT_MS',
      default: 30_000,
      min: 100,
      max: 3_600_000,
      unit: 'ms',
      meaning:
        'How long a body read into memory (JSON, form) may take in total; a multipart upload may take longer as long as it never pauses this long.',
    }),
    keepAliveTimeoutMs: integer({
      name: 'HTTP_KEEP_ALIVE_TIMEOUT_MS',
      default: 65_000,
      min: 1_000,
      max: 600_000,
      unit: 'ms',
      meaning:
        "An idle keep-alive connection is closed after this: keep it above your proxy's own idle timeout (the nginx ingress keeps upstream connections 60 s).",
    }),
    maxBodyBytesInFlight: size({
      name: 'PWP__MAX_BODY_BYTES_IN_FLIGHT',
      default: 48 * MIB,
      min: 1024,
      max: 64 * 1024 * MIB,
      meaning:
        'Request body bytes read (and held) at once by the process; a body beyond it gets a 503 with Retry-After, unread. A JSON body costs up to ~4x its size while parsed: the default fits a 512 MiB pod.',
    }),
    corsOrigins: list({
      name: 'CORS_ORIGINS',
      check: { valid: isOrigin, expectation: 'must be comma-separated origins such as https://app.example.com, or *' },
      unset: 'no CORS headers at all',
      meaning:
        "Browser origins allowed by CORS (e.g. https://tools.example.com), or *. POST /p.json, API v1's create, is open to any origin regardless, as in the reference.",
    }),
  },
});

export function readHttp(read: Reader): HttpSettings {
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, maxBodyBytesInFlight } = HTTP.settings;
  return {
    headersTimeoutMs: read(headersTimeoutMs),
    requestTimeoutMs: read(requestTimeoutMs),
    keepAliveTimeoutMs: read(keepAliveTimeoutMs),
    maxBodyBytesInFlight: read(maxBodyBytesInFlight),
  };
}

/** An origin as browsers send it: scheme://host[:port], nothing after; or * for any. */
function isOrigin(value: string): boolean {
  if (value === '*') return true;
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value.replace(/\/$/, '');
}
