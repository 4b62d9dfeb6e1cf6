import busboy from 'busboy';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { parse as parseFields } from 'qs';
import { BadRequestError, PayloadTooLargeError } from '@app/common';
import { formatBytes } from '@app/config';

/** A file part, as it arrives: its stream must be consumed (or destroyed) for the body to go on. */
export interface FilePart {
  /** The part's field name, e.g. `push[files][]`. */
  field: string;
  /** As the client named it; data, never a path. */
  filename: string;
  contentType: string;
  stream: Readable;
}

export interface MultipartOptions {
  /** Most non-file fields. */
  maxFields: number;
  /** Most bytes of all non-file fields together (names and values): they are held in memory, unlike files. */
  maxFieldBytes: number;
  /**
   * Called for each file part in order; the body is read on only as the part's stream is consumed.
   * `fieldsSoFar` gives the fields that came before the part (a form's hidden fields come first),
   * for a check that must pass before a byte of a file is stored.
   */
  onFile(part: FilePart, fieldsSoFar: () => Record<string, unknown>): Promise<void>;
}

/**
 * Reads a multipart/form-data request body as it streams in: fields are gathered into the nested
 * object a form body gives (`push[payload]` → `{ push: { payload } }`, with the same parser, so
 * both forms of body mean the same), and each file part goes to `onFile` while it arrives. Resolves
 * once the body is read and every `onFile` has settled; rejects on the first failure, after the
 * `onFile` calls already started have settled, so that what they stored can be cleaned up.
 */
export function readMultipartBody(request: IncomingMessage, options: MultipartOptions): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      // Filenames and field values are UTF-8, as browsers and HTTP clients send them.
      parser = busboy({
        headers: request.headers,
        defParamCharset: 'utf8',
        limits: { fields: options.maxFields, fieldSize: options.maxFieldBytes },
      });
    } catch {
      return reject(new BadRequestError(MALFORMED));
    }
    const fields: string[] = [];
    let fieldBytes = 0;
    const files: Promise<void>[] = [];
    let failure: unknown;
    const fail = (error: unknown): void => {
      if (failure !== undefined) return;
      failure = error;
      request.unpipe(parser);
      parser.removeAllListeners('file').on('file', (_name: string, stream: Readable) => stream.resume());
      void Promise.allSettled(files).then(() => reject(error instanceof Error ? error : new Error('Reading the multipart body failed.')));
    };
    parser.on('field', (name, value, info) => {
      fieldBytes += Buffer.byteLength(name) + Buffer.byteLength(value);
      if (info.valueTruncated || fieldBytes > options.maxFieldBytes) {
        return fail(new PayloadTooLargeError(`Request body has form fields over ${formatBytes(options.maxFieldBytes)} in all.`));
      }
      fields.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
    });
    parser.on('file', (field, stream, info) => {
      const part = { field, filename: info.filename ?? '', contentType: info.mimeType, stream };
      files.push(
        (async () => options.onFile(part, () => parseFields(fields.join('&'), FIELD_PARSING)))().catch((error: unknown) => {
          stream.resume();
          fail(error);
        }),
      );
    });
    parser.on('fieldsLimit', () => fail(new PayloadTooLargeError(`Request body has too many form fields (limit ${options.maxFields}).`)));
    parser.on('error', () => fail(new BadRequestError(MALFORMED)));
    request.on('error', (error) => fail(error));
    parser.on('close', () => {
      void Promise.all(files).then(() => {
        if (failure !== undefined) return;
        try {
          resolve(parseFields(fields.join('&'), FIELD_PARSING));
        } catch {
          fail(new BadRequestError('Malformed request body: form parameters nested too deeply.'));
        }
      }, fail);
    });
    request.pipe(parser);
  });
}

const MALFORMED = 'Malformed request body: invalid multipart form data.';

/** As the form-body parser reads fields, but never onto prototypes. */
const FIELD_PARSING = { allowPrototypes: false, depth: 32, strictDepth: true, arrayLimit: 100, parameterLimit: Infinity } as const;
