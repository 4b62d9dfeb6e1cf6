import { applyDecorators, type Type } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiProperty,
  ApiResponse,
  getSchemaPath,
  type HeadersObject,
  type ReferenceObject,
  type SchemaObject,
} from '@nestjs/swagger';
import type { FieldErrors } from './errors';
import { BUSY, COMPRESSED, UNSUPPORTED_TYPE } from './request-bodies';

/**
 * The OpenAPI vocabulary shared by every controller: the error bodies of the contract and
 * response decorators that always declare the headers the API sets. Operation-specific
 * documentation lives in `*.openapi.ts` beside each controller.
 */

/** Every error: `{"error": "..."}`. */
export class ErrorResponse {
  @ApiProperty({ description: 'What went wrong, for people and logs.', example: 'not-found' })
  error!: string;
}

/** 422: `error` repeats the first message; `errors` lists every field's messages. */
export class ValidationErrorResponse extends ErrorResponse {
  @ApiProperty({
    description: 'Messages per field of `push`, e.g. `payload` or `expire_after_days`.',
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string' }, minItems: 1 },
    example: { expire_after_days: ['Expire after days must be between 1 and 90.'] },
  })
  errors!: FieldErrors;
}

/** 401 for a protected push retrieved (or deleted by a viewer) without the right passphrase. */
export class PassphraseErrorResponse extends ErrorResponse {
  @ApiProperty({
    description: 'How to provide the passphrase.',
    example: 'This push requires a passphrase. Provide it with the passphrase query parameter or the X-Passphrase header.',
  })
  message!: string;
}

const header = (description: string, schema: SchemaObject, required = true): HeadersObject[string] => ({ description, schema, required });

/** Every answer carries it: the id is assigned before anything else runs. */
const REQUEST_ID_HEADER: HeadersObject = {
  'X-Request-Id': header("The request's id: the caller's own X-Request-Id when it is sane (1-128 of `[A-Za-z0-9_.:-]`), else a UUID.", {
    type: 'string',
  }),
};

const RETRY_AFTER_HEADER: HeadersObject = {
  'Retry-After': header('Seconds until requests are accepted again.', { type: 'integer', minimum: 0 }),
};

export const WWW_AUTHENTICATE_HEADER: HeadersObject = {
  'WWW-Authenticate': header('Always `Bearer`: send `Authorization: Bearer <API token>`.', { type: 'string', enum: ['Bearer'] }),
};

export const LINK_HEADER: HeadersObject = {
  Link: header('`<{base}{path}?page=N+1>; rel="next"` when another page follows; absent on the last page.', { type: 'string' }, false),
};

type Example = { summary: string; value: unknown };

export interface JsonResponseOptions {
  description: string;
  /** A response class, or a ready schema (e.g. a oneOf of classes, which must also be in `models`). */
  type?: Type<unknown>;
  schema?: SchemaObject & Partial<ReferenceObject>;
  models?: Type<unknown>[];
  isArray?: boolean;
  headers?: HeadersObject;
  examples?: Record<string, Example>;
}

/** One JSON response; X-Request-Id is always declared. */
export function ApiJsonResponse(status: number, options: JsonResponseOptions): MethodDecorator & ClassDecorator {
  const headers = { ...REQUEST_ID_HEADER, ...options.headers };
  const schema: SchemaObject & Partial<ReferenceObject> =
    options.schema ??
    (options.isArray ? { type: 'array', items: { $ref: getSchemaPath(options.type!) } } : { $ref: getSchemaPath(options.type!) });
  const models = [...(options.models ?? []), ...(options.type ? [options.type] : [])];
  return applyDecorators(
    ApiExtraModels(...models),
    ApiResponse({ status, description: options.description, schema, headers, ...(options.examples ? { examples: options.examples } : {}) }),
  );
}

/** A response whose body is a file's bytes, in the file's own media type; X-Request-Id is always declared. */
export function ApiFileResponse(status: number, description: string, headers: Record<string, [description: string, schema: SchemaObject]>): MethodDecorator & ClassDecorator {
  const declared = Object.fromEntries(Object.entries(headers).map(([name, [text, schema]]) => [name, header(text, schema)]));
  return ApiResponse({ status, description, content: { '*/*': { schema: { type: 'string', format: 'binary' } } }, headers: { ...REQUEST_ID_HEADER, ...declared } });
}

/** An error response with the contract's error body (or a subtype of it). */
export function ApiErrorResponse(
  status: number,
  description: string,
  options: Omit<JsonResponseOptions, 'description' | 'isArray'> & { example?: string } = {},
): MethodDecorator & ClassDecorator {
  const examples =
    options.examples ??
    (options.example === undefined ? undefined : { error: { summary: description, value: { error: options.example } } });
  return ApiJsonResponse(status, { type: options.schema ? undefined : (options.type ?? ErrorResponse), ...options, description, examples });
}

export const ApiNotFound = (what = 'No push has this token.') =>
  ApiErrorResponse(404, what, { examples: { notFound: { summary: 'Unknown token', value: { error: 'not-found' } } } });

export const ApiValidationFailed = (
  description = 'The request breaks a rule; `errors` names every field at fault and `error` repeats the first message.',
) =>
  ApiErrorResponse(422, description, {
    type: ValidationErrorResponse,
    examples: {
      limit: {
        summary: 'A limit outside the kind’s range',
        value: {
          error: 'Expire after views must be between 1 and 100.',
          errors: { expire_after_views: ['Expire after views must be between 1 and 100.'] },
        },
      },
      payload: { summary: 'No payload', value: { error: 'Payload is required.', errors: { payload: ['Payload is required.'] } } },
    },
  });

const RATE_LIMITED =
  'Too many requests from this address (PWP__THROTTLING__MINUTE / PWP__THROTTLING__SECOND); retry after Retry-After seconds.';

export const ApiTooManyRequests = (description = RATE_LIMITED, examples?: Record<string, Example>) =>
  ApiErrorResponse(429, description, { headers: RETRY_AFTER_HEADER, examples });

/** A body that did not arrive in time (RequestBodies' deadline); the connection is closed after the answer. */
export const ApiBodyTimeout = () =>
  ApiErrorResponse(
    408,
    'The body did not all arrive within HTTP_REQUEST_TIMEOUT_MS of the headers (30 s); the connection is closed. A multipart upload may take longer as long as it does not pause that long; one that does is cut off without an answer.',
    { example: 'Request timeout: the body did not arrive within 30000 ms.' },
  );

/** A body of another type than the three a create reads, or compressed: refused unread. */
export const ApiUnsupportedBody = () =>
  ApiErrorResponse(
    415,
    'The body is not `application/json`, `application/x-www-form-urlencoded` or `multipart/form-data` (or has no Content-Type), or is compressed (a `Content-Encoding` other than `identity`). Refused before it is read.',
    {
      headers: {
        'Accept-Post': header('The types a body may have (with an unsupported type).', { type: 'string' }, false),
        'Accept-Encoding': header('`identity`: send the body uncompressed (with a compressed body).', { type: 'string', enum: ['identity'] }, false),
      },
      examples: {
        type: { summary: 'Another Content-Type (`text/plain`), or none', value: { error: UNSUPPORTED_TYPE.message } },
        compressed: { summary: 'Content-Encoding: gzip', value: { error: COMPRESSED.message } },
      },
    },
  );

const UNAVAILABLE = 'The database cannot be reached or did not answer in time; nothing was changed. Retry after Retry-After seconds.';

/** The database (or another dependency) cannot be reached: nothing was done, try again. */
export const ApiServiceUnavailable = () => ApiErrorResponse(503, UNAVAILABLE, { headers: RETRY_AFTER_HEADER, example: 'service-unavailable' });

/** A route that reads a body: also a 503 when the process holds as many bodies as it may. */
export const ApiBodyServiceUnavailable = () =>
  ApiErrorResponse(503, `${UNAVAILABLE} Also when the server is reading as many request bodies as it may hold at once (PWP__MAX_BODY_BYTES_IN_FLIGHT): this body was not read.`, {
    headers: RETRY_AFTER_HEADER,
    examples: {
      unavailable: { summary: 'The database cannot be reached', value: { error: 'service-unavailable' } },
      busy: { summary: 'Too many bodies at once', value: { error: BUSY } },
    },
  });
