import type { WebhookSettings } from '@app/config';
import { lookup } from 'node:dns/promises';
import type { IncomingMessage } from 'node:http';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { finished } from 'node:stream';
import { isAllowedHostName, isRefusedAddress, literalAddress, REFUSED_ADDRESS_KINDS, refusedWebhookUrl } from './webhook-destination';

export interface WebhookRequest {
  url: string;
  /** The signature headers and any others; content-type and user-agent are the sender's. */
  headers: Record<string, string>;
  body: string;
}

/** How one attempt went: `error` is short and safe to store and show its owner (never the body, headers or secrets). */
export interface DeliveryResult {
  ok: boolean;
  status?: number;
  error?: string;
  /** The address policy refused the destination: every later attempt would be refused alike, so none is made. */
  final?: boolean;
  /** Why the network failed (DNS, an error code, the deadline), for the operator's log: the owner sees NO_ANSWER only. */
  detail?: string;
}

/**
 * What the owner reads for every failure without an HTTP answer. One text for a refused
 * connection, a timeout, a TLS or DNS failure: distinct texts would let a user scan ports and
 * names that the address policy lets through (an allowed in-cluster range) by watching which
 * one their deliveries show.
 */
export const NO_ANSWER = 'no answer (connection failed or timed out)';

/** Every address a host name has, as `dns.lookup(name, { all: true })` gives them. */
export type ResolveHost = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** Seams for tests; production uses the defaults. */
export interface WebhookSenderOptions {
  /** Certificates to trust instead of the system's, for a local https receiver. */
  ca?: string | Buffer;
  /** The resolver (the system's by default), so a test can name addresses no DNS gives out. */
  resolveHost?: ResolveHost;
}

const systemResolver: ResolveHost = (hostname) => lookup(hostname, { all: true });

/** The receiver's answer is not used: read this much so a short one ends cleanly, then hang up. */
export const MAX_RESPONSE_BYTES = 4096;

const USER_AGENT = 'pwpush-api-webhooks';

interface Address {
  address: string;
  family: 4 | 6;
}

/** Where a connection goes: the URL, and the addresses its host was checked at. */
interface Destination {
  url: URL;
  /** Never empty. */
  addresses: Address[];
}

/**
 * Posts webhook messages without letting a URL reach what it must not (SSRF): the URL policy is
 * checked again (settings may have changed since registration), the host is resolved once and
 * every address it has is checked, and the connection goes to the checked addresses only (so a
 * second, different DNS answer cannot be used against us) with the name kept for SNI,
 * certificate checks and Host. Redirects are not followed and one deadline bounds the whole
 * attempt. No proxy from the environment is used: each request gets its own agent-less
 * connection, so neither a global agent nor a pooled socket to another address can step in.
 */
export class WebhookSender {
  constructor(
    private readonly settings: WebhookSettings,
    private readonly options: WebhookSenderOptions = {},
  ) {}

  async send(request: WebhookRequest): Promise<DeliveryResult> {
    const refusal = refusedWebhookUrl(request.url, this.settings);
    if (refusal !== undefined) return refused(`refused: URL ${refusal}`);
    const signal = AbortSignal.timeout(this.settings.timeoutMs);
    const destination = await this.resolve(new URL(request.url), signal);
    if ('ok' in destination) return destination;
    return this.post(destination, request, signal);
  }

  /** The host's addresses, once every one of them has passed the policy. */
  private async resolve(url: URL, signal: AbortSignal): Promise<Destination | DeliveryResult> {
    const literal = literalAddress(url);
    if (literal !== undefined) return { url, addresses: [{ address: literal, family: isIP(literal) === 6 ? 6 : 4 }] };
    let addresses: Address[];
    try {
      const answers = await untilAborted((this.options.resolveHost ?? systemResolver)(url.hostname), signal);
      addresses = answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
    } catch {
      return noAnswer(signal.aborted ? 'timeout' : 'DNS lookup failed');
    }
    if (addresses.length === 0) return noAnswer('DNS lookup found no address');
    const allowedByName = isAllowedHostName(url.hostname, this.settings);
    if (!allowedByName && addresses.some(({ address }) => isRefusedAddress(address, this.settings))) {
      return refused(`refused: resolves to ${REFUSED_ADDRESS_KINDS}`);
    }
    return { url, addresses };
  }

  private post({ url, addresses }: Destination, request: WebhookRequest, signal: AbortSignal): Promise<DeliveryResult> {
    const client = url.protocol === 'https:' ? https : http;
    const body = Buffer.from(request.body);
    return new Promise((resolve) => {
      const outgoing = client.request(url, {
        method: 'POST',
        headers: {
          ...request.headers,
          'content-type': 'application/json',
          'content-length': body.length,
          'user-agent': USER_AGENT,
        },
        agent: false,
        lookup: pinnedLookup(addresses),
        ca: this.options.ca,
        signal,
      });
      outgoing.on('response', (response) => {
        readBounded(response, () => {
          outgoing.destroy();
          resolve(resultOf(response.statusCode ?? 0));
        });
      });
      outgoing.on('error', (error) => resolve(noAnswer(signal.aborted ? 'timeout' : describeError(error))));
      outgoing.end(body);
    });
  }
}

/**
 * A DNS lookup that answers the checked addresses: all of them when Node asks for all (to try
 * each family in turn, "happy eyeballs"), else the first, as the resolver ordered them.
 */
function pinnedLookup(addresses: Address[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  };
}

/** Reads the response to its end or to MAX_RESPONSE_BYTES, whichever comes first, then calls done once. */
function readBounded(response: IncomingMessage, done: () => void): void {
  let received = 0;
  response.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > MAX_RESPONSE_BYTES) response.destroy();
  });
  finished(response, () => done());
}

function resultOf(status: number): DeliveryResult {
  if (status >= 200 && status < 300) return { ok: true, status };
  if (status >= 300 && status < 400) return { ok: false, status, error: `redirect not followed (HTTP ${status})` };
  return { ok: false, status, error: `HTTP ${status}` };
}

function refused(error: string): DeliveryResult {
  return { ok: false, error, final: true };
}

function noAnswer(detail: string): DeliveryResult {
  return { ok: false, error: NO_ANSWER, detail };
}

/** The error's code only (ECONNREFUSED, CERT_HAS_EXPIRED, ...): messages can carry addresses and more. */
function describeError(error: Error & { code?: unknown }): string {
  const code = typeof error.code === 'string' && /^[A-Z0-9_]{1,64}$/.test(error.code) ? error.code : 'unknown error';
  return `connection failed (${code})`;
}

/** The promise's outcome, or a rejection as soon as the signal aborts (dns.lookup cannot be cancelled). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(new Error('aborted'));
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    void promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
