import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import express, { type Request, type Response } from 'express';
import { formatBytes, InjectSettings, type Settings } from '@app/config';
import { BadRequestError, PayloadTooLargeError, ServiceUnavailableError, UnsupportedMediaTypeError } from './errors';

const MIB = 1024 * 1024;

/**
 * The largest body of a create without files, JSON or form. A text payload is at most 1,048,576
 * characters, and a character takes at most 12 bytes on the wire: one outside the BMP may be
 * written in JSON as an escaped surrogate pair (`\ud83d\ude00`, as Python's json.dumps does by
 * default), and a form percent-encodes its 4 UTF-8 bytes (`%F0%9F%98%80`). 12 MiB for the payload,
 * 1 MiB for the rest (a 10,000-character note, the passphrase, the name, the keys).
 */
export const TEXT_BODY_BYTES = 13 * MIB;

/** All fields of a multipart body together: raw UTF-8, so the payload takes at most 4 MiB. Its files stream to storage and are not held. */
export const MULTIPART_FIELDS_BYTES = 5 * MIB;

/** A push has about ten fields: a form body never needs more. */
export const FORM_PARAMETER_LIMIT = 100;

/** Far deeper than any valid request; deeper bodies would exhaust the stack of the validation layers. */
const MAX_BODY_DEPTH = 32;

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';
const MULTIPART_TYPE = 'multipart/form-data';
const BODY_TYPES = [JSON_TYPE, FORM_TYPE, MULTIPART_TYPE];
export type BodyType = 'json' | 'form' | 'multipart';
const TYPE_OF: Record<string, BodyType> = { [JSON_TYPE]: 'json', [FORM_TYPE]: 'form', [MULTIPART_TYPE]: 'multipart' };

export const UNSUPPORTED_TYPE = new UnsupportedMediaTypeError(
  `Unsupported Content-Type: send the body as ${JSON_TYPE}, ${FORM_TYPE} or ${MULTIPART_TYPE}.`,
  { 'Accept-Post': BODY_TYPES.join(', ') },
);
export const COMPRESSED = new UnsupportedMediaTypeError('Compressed request bodies are not accepted: send the body without a Content-Encoding.', {
  'Accept-Encoding': 'identity',
});
export const BUSY = 'The server is reading too many request bodies at once; retry after Retry-After seconds.';
/** A body is read in well under a second on any sane link: a second is enough for room to free up. */
const RETRY_BUSY_AFTER = 1;

/** Whether a request announces a body: chunked, or a Content-Length other than 0. */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length.trim() !== '0');
}

const declaredLength = (req: IncomingMessage): number | undefined => {
  const length = Number(req.headers['content-length']);
  return req.headers['transfer-encoding'] === undefined && Number.isSafeInteger(length) ? length : undefined;
};

/**
 * Every request body, from the moment its headers arrive until its answer is sent, in one place:
 *
 * - **What is read**: JSON, forms and multipart, uncompressed (415 otherwise, before a byte is read:
 *   no client of the reference compresses a request body, and inflating is how 16 KB become 16 MB).
 * - **How much**: TEXT_BODY_BYTES for a body without files; PWP__FILES__MAX_JSON_BODY_SIZE for the JSON
 *   of a caller already authenticated; multipart fields MULTIPART_FIELDS_BYTES (files stream).
 * - **How much at once**: PWP__MAX_BODY_BYTES_IN_FLIGHT is the process's budget; a body takes its
 *   share (its Content-Length, or its limit when chunked) before it is read and gives it back when
 *   its answer is sent, since what it was parsed into lives until then. A body that does not fit is
 *   a 503 with Retry-After, unread. One that is alone is always admitted, so a budget below the
 *   largest body still lets that body through, one at a time.
 * - **How long**: HTTP_REQUEST_TIMEOUT_MS, counted from the headers, for a body read into memory;
 *   a multipart upload, which may be hundreds of MiB, may instead take as long as it needs as long
 *   as it does not pause that long. Node's own request timeout cannot tell the two apart.
 */
@Injectable()
export class RequestBodies {
  private inFlight = 0;
  private readonly parsers = new Map<string, express.RequestHandler>();
  private readonly progressing = new WeakSet<IncomingMessage>();

  constructor(@InjectSettings() private readonly settings: Settings) {}

  /** The body's type, or undefined without a body; a 415 for a compressed body or one of another type. */
  typeOf(req: Request): BodyType | undefined {
    if (!hasBody(req)) return undefined;
    const encoding = req.headers['content-encoding']?.trim().toLowerCase();
    if (encoding && encoding !== 'identity') throw COMPRESSED;
    const type = req.is(BODY_TYPES);
    if (!type) throw UNSUPPORTED_TYPE;
    return TYPE_OF[type];
  }

  /**
   * Reads a JSON or form body into `req.body`, within its limit (413), the budget (503) and the
   * deadline. Only an authenticated caller's JSON gets the larger limit that base64 files need.
   */
  async read(req: Request, res: Response, type: 'json' | 'form', authenticated: boolean): Promise<void> {
    if (!hasBody(req)) return;
    const limit = type === 'json' && authenticated ? Math.max(this.settings.files.maxJsonBodyBytes, TEXT_BODY_BYTES) : TEXT_BODY_BYTES;
    const length = declaredLength(req);
    if (length !== undefined && length > limit) throw tooLarge(limit);
    this.reserve(res, length ?? limit);
    await new Promise<void>((resolve, reject) => this.parser(type, limit)(req, res, (error?: unknown) => (error ? reject(bodyError(error, limit)) : resolve())));
    if (nestedDeeperThan(req.body, MAX_BODY_DEPTH)) throw new BadRequestError(`Malformed request body: nested more than ${MAX_BODY_DEPTH} levels deep.`);
  }

  /**
   * Admits a multipart body, read as it streams by its route: its fields take their share of the
   * budget, and the deadline becomes one on pauses, so that a large upload may take its time.
   */
  admitMultipart(req: Request, res: Response): void {
    this.reserve(res, Math.min(declaredLength(req) ?? MULTIPART_FIELDS_BYTES, MULTIPART_FIELDS_BYTES));
    this.progressing.add(req);
    req.setTimeout(this.settings.http.requestTimeoutMs);
    // Once answered, the connection's keep-alive timeout has taken the socket's timer: left alone.
    req.once('end', () => {
      if (!res.writableFinished) req.setTimeout(0);
    });
  }

  /** Holds `bytes` of the budget until the answer is sent; a 503 when they do not fit beside the bodies being read. */
  private reserve(res: ServerResponse, bytes: number): void {
    if (this.inFlight > 0 && this.inFlight + bytes > this.settings.http.maxBodyBytesInFlight) {
      throw new ServiceUnavailableError(BUSY, {}, RETRY_BUSY_AFTER);
    }
    this.inFlight += bytes;
    res.once('close', () => (this.inFlight -= bytes));
  }

  /**
   * Starts the body deadline of a request (every request with a body, as it arrives, whatever
   * reads its body or leaves it to be discarded): a body that has not all arrived in time gets a
   * 408 and its connection is closed.
   */
  readonly limitTime = (req: IncomingMessage, res: ServerResponse): void => {
    if (!hasBody(req)) return;
    const timer = setTimeout(() => {
      if (req.complete || this.progressing.has(req)) return;
      if (res.headersSent) return void req.socket.destroy();
      const body = JSON.stringify({ error: `Request timeout: the body did not arrive within ${this.settings.http.requestTimeoutMs} ms.` });
      res.writeHead(408, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' }).end(body);
    }, this.settings.http.requestTimeoutMs).unref();
    req.once('end', () => clearTimeout(timer));
    req.once('close', () => clearTimeout(timer));
  };

  /** One parser per type and limit (there are three); the type was checked by typeOf. */
  private parser(type: 'json' | 'form', limit: number): express.RequestHandler {
    const key = `${type}:${limit}`;
    let parser = this.parsers.get(key);
    if (parser === undefined) {
      const options = { limit, inflate: false, type: () => true };
      parser = type === 'json' ? express.json(options) : express.urlencoded({ ...options, extended: true, parameterLimit: FORM_PARAMETER_LIMIT });
      this.parsers.set(key, parser);
    }
    return parser;
  }
}

const tooLarge = (limit: number) => new PayloadTooLargeError(`Request body is too large (limit ${formatBytes(limit)}).`);

/** What each body-parser failure tells the client; the parser's own messages can quote the body. */
const BODY_ERRORS = new Map<string | undefined, () => Error>([
  ['parameters.too.many', () => new PayloadTooLargeError(`Request body has too many form parameters (limit ${FORM_PARAMETER_LIMIT}).`)],
  ['querystring.parse.rangeError', () => new BadRequestError('Malformed request body: form parameters nested too deeply.')],
  ['charset.unsupported', () => new BadRequestError('Malformed request body: unsupported charset (send UTF-8).')],
  ['encoding.unsupported', () => COMPRESSED],
]);

function bodyError(failure: unknown, limit: number): Error {
  const error = failure as { status?: number; type?: string };
  if (error.type === 'entity.too.large') return tooLarge(limit);
  const known = BODY_ERRORS.get(error.type);
  if (known) return known();
  const clientError = error.status !== undefined && error.status >= 400 && error.status < 500;
  if (clientError) return new BadRequestError('Malformed request body: expected valid JSON.');
  return failure instanceof Error ? failure : new Error('Reading the request body failed.');
}

function nestedDeeperThan(body: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[body, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, depth] = next;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Object.values(value)) pending.push([child, depth + 1]);
  }
  return false;
}
