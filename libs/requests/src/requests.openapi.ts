import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiExtension, ApiHeader, ApiOperation, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { AuditLogResponse } from '@app/audit';
import { ApiNoAuthentication, ApiRequiredAuthentication } from '@app/auth';
import {
  ApiBodyServiceUnavailable, ApiBodyTimeout, ApiErrorResponse, ApiFileResponse, ApiJsonResponse, ApiNotFound, ApiServiceUnavailable, ApiTooManyRequests,
  ApiUnsupportedBody, ApiValidationFailed, ErrorResponse, LINK_HEADER, MALFORMED_URL, PassphraseErrorResponse, WWW_AUTHENTICATE_HEADER,
} from '@app/common';
import { PreviewResponse } from '@app/pushes';
import { describeCloseAfter } from './closing-times';
import { CreateRequestBody, RespondBody } from './dto/create-request.dto';
import { AnsweredRequestResponse, PublicRequestResponse, RequestResponse } from './dto/request-response.dto';

/**
 * The OpenAPI description of each secret-request endpoint, one composite decorator per handler so
 * the controller stays one line per route. Statuses and bodies follow the exception filter's mapping.
 */

const Tag = () => ApiTags('requests');
const NO_STORE = { 'Cache-Control': { description: 'Never stored by browsers or proxies.', schema: { type: 'string', enum: ['no-store'] }, required: true } };
const INVALID_TOKEN = { summary: 'An unknown, revoked or blank API token', value: { error: 'Invalid or revoked API token.' } };
const AUTH_REQUIRED = { summary: 'No API token', value: { error: 'Authentication required: send Authorization: Bearer <API token>.' } };
const NOT_YOURS = "That request doesn't belong to you.";
const OFF = 'Secret requests are off on this instance (PWP__ENABLE_REQUESTS=false): every route answers 404.';
const ANSWERED = 'This request has already been answered.';

const UrlToken = () =>
  ApiParam({ name: 'url_token', description: "The request's token, as create returned it.", schema: { type: 'string' }, example: 'fkwjfvhall1yh6ytNJMHDwbq' });

const ApiCredential = (description = 'No API token was sent, or the one sent is unknown, revoked or blank.') =>
  ApiErrorResponse(401, description, { headers: WWW_AUTHENTICATE_HEADER, examples: { invalidToken: INVALID_TOKEN, noToken: AUTH_REQUIRED } });

const ApiBadToken = (more = '') =>
  ApiErrorResponse(400, `The url_token is not valid percent-encoding${more}.`, { examples: { badEncoding: { summary: 'Broken percent-encoding', value: { error: MALFORMED_URL } } } });

const ApiNotYours = () => ApiErrorResponse(403, 'The request belongs to someone else.', { example: NOT_YOURS });

const ApiHeadRefused = () =>
  ApiErrorResponse(405, 'HEAD is refused (with `Allow`): reads of requests are audited and may close one whose time has come.', {
    headers: { Allow: { description: 'The methods the path answers.', schema: { type: 'string' }, required: true } },
    example: 'Method not allowed: this route reveals a secret and counts a view, so it answers only a GET.',
  });

/** The requester's routes: owner only. */
const OwnerOnly = (operationId: string, summary: string, description: string) =>
  applyDecorators(Tag(), ApiOperation({ operationId, summary, description }), UrlToken(), ApiRequiredAuthentication(), ApiCredential(), ApiNotYours(), ApiNotFound(`No request has this token. ${OFF}`), ApiTooManyRequests(), ApiServiceUnavailable());

const FORM_BODY = {
  type: 'object',
  properties: {
    'request[request]': { type: 'string', description: 'As `request` in JSON.' },
    'request[close_after_duration]': { type: 'integer' },
    'request[passphrase]': { type: 'string' },
    'request[name]': { type: 'string' },
    'request[note]': { type: 'string' },
    'request[retrieval_step]': { type: 'boolean' },
    'request[include_requestor]': { type: 'boolean' },
    'request[response_file_attachments]': { type: 'boolean' },
    'request[files][]': { type: 'array', items: { type: 'string', format: 'binary' }, description: "The requester's own files, for the responder (multipart only)." },
  },
};

const RESPOND_FORM_BODY = {
  type: 'object',
  properties: {
    'request[response]': { type: 'string', description: 'As `response` in JSON.' },
    'request[files][]': { type: 'array', items: { type: 'string', format: 'binary' }, description: "The responder's files, when the request takes them (multipart only)." },
  },
};

const FILE_LIMITS =
  'Files follow the file pushes\' setting (PWP__ENABLE_FILE_PUSHES) and limits: PWP__FILES__MAX_FILE_UPLOADS files, PWP__FILES__MAX_FILE_SIZE each, PWP__FILES__MAX_PUSH_SIZE together; encrypted into storage while they stream in.';

const ApiTooLarge = () =>
  ApiErrorResponse(413, "The body is over 13 MiB, a multipart body's fields are over 5 MiB together, or a file is over a size limit.", {
    examples: { body: { summary: 'Body too large', value: { error: 'Request body is too large (limit 13MiB).' } }, file: { summary: 'A file over the per-file limit', value: { error: 'A file is over the 100MiB limit.' } } },
  });

export const ApiCreateRequest = () =>
  applyDecorators(
    Tag(),
    ApiOperation({
      operationId: 'createRequest',
      summary: 'Ask someone to send you a secret',
      description:
        'Creates a secret request: share its `html_url` with the responder, who answers once on that page (or with PATCH .../respond); only you read the answer, until the request closes ' +
        `(close_after_duration: ${describeCloseAfter()}; default 8), when the answer and every file are destroyed. ` +
        `Also as \`multipart/form-data\` (\`request[request]\`, ..., with your own files as \`request[files][]\` parts) or a form. ${FILE_LIMITS}`,
    }),
    ApiRequiredAuthentication(),
    ApiConsumes('application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'),
    ApiExtension('x-form-body', FORM_BODY),
    ApiBody({
      type: CreateRequestBody,
      examples: {
        simple: { summary: 'A password, within a day', value: { request: { request: 'Please send the staging database password.', close_after_duration: 6 } } },
        guarded: { summary: 'With a passphrase, files allowed, your address shown', value: { request: { request: 'The signed contract, please.', passphrase: 'open sesame', include_requestor: true, response_file_attachments: true, name: 'Contract' } } },
      },
    }),
    ApiJsonResponse(201, { type: RequestResponse, description: 'The request, `open`.', headers: NO_STORE }),
    ApiErrorResponse(400, 'The body is not valid JSON or form data, or `request` is missing or empty.', {
      examples: { missing: { summary: '`request` missing or empty', value: { error: 'param is missing or the value is empty or invalid: request' } } },
    }),
    ApiCredential('Requests need an API token (a person asks): none was sent, or the one sent is unknown, revoked or blank.'),
    ApiNotFound(OFF),
    ApiTooLarge(),
    ApiBodyTimeout(),
    ApiUnsupportedBody(),
    ApiValidationFailed('The request breaks a rule: `request` missing, blank or too long, close_after_duration not one of 0..17, files while file pushes are disabled or too many of them.'),
    ApiTooManyRequests(),
    ApiBodyServiceUnavailable(),
  );

const ApiListRequests = (list: string, operationId: string, summary: string) =>
  applyDecorators(
    Tag(),
    ApiOperation({ operationId, summary, description: `Newest first, 50 per page; \`[]\` past the end. A \`Link\` header points at the next page when there is one. ${list}` }),
    ApiRequiredAuthentication(),
    ApiJsonResponse(200, { type: RequestResponse, isArray: true, headers: { ...LINK_HEADER, ...NO_STORE }, description: 'One page of requests.' }),
    ApiErrorResponse(400, 'The page parameter is not an integer from 1 to 200, or is given as a list or object (`page[]=1`).', { example: 'Invalid page parameter' }),
    ApiHeadRefused(),
    ApiCredential(),
    ApiNotFound(OFF),
    ApiTooManyRequests(),
    ApiServiceUnavailable(),
  );

export const ApiListActiveRequests = () => ApiListRequests('Open and ready ones: not closed.', 'listActiveRequests', "The caller's requests not closed");
export const ApiListOpenRequests = () => ApiListRequests('Those waiting for their answer.', 'listOpenRequests', "The caller's open requests");
export const ApiListReadyRequests = () => ApiListRequests('Those answered and not closed.', 'listReadyRequests', "The caller's answered requests");
export const ApiListClosedRequests = () => ApiListRequests('Those closed (their answers destroyed); requests whose time has come are listed here even before the sweep closes them.', 'listClosedRequests', "The caller's closed requests");

export const ApiRetrieveRequest = () =>
  applyDecorators(
    OwnerOnly(
      'retrieveRequest',
      'Read a request and its answer (owner only)',
      'The request with `response` (null until answered and once closed) and the responder\'s `files` as short-lived download links. Each read of an answer is audited (`response_view`); the answer can be read as often as needed until the request closes. HEAD is refused (405).',
    ),
    ApiJsonResponse(200, { type: AnsweredRequestResponse, description: 'The request with its answer.', headers: NO_STORE }),
    ApiBadToken(),
    ApiHeadRefused(),
  );

export const ApiCloseRequest = () =>
  applyDecorators(
    OwnerOnly('closeRequest', 'Close a request (owner only)', 'Closes it at once: the answer and both sides\' files are destroyed, and the link answers 404 to responders. Audited (`expire`). Already closed: 200, nothing changes.'),
    ApiJsonResponse(200, { type: RequestResponse, description: 'The request, `closed`.', headers: NO_STORE }),
    ApiBadToken(),
  );

export const ApiPreviewRequest = () =>
  applyDecorators(
    OwnerOnly('previewRequest', "A request's link (owner only)", 'The responder\'s page, `html_url`. HEAD is refused (405).'),
    ApiJsonResponse(200, { type: PreviewResponse, description: "The request's html_url." }),
    ApiBadToken(),
    ApiHeadRefused(),
  );

export const ApiGetRequestAudit = () =>
  applyDecorators(
    OwnerOnly(
      'getRequestAudit',
      "A request's audit log (owner only)",
      'Oldest first, 50 entries per page. Kinds: creation, view (the responder opened the page), failed_passphrase, response, response_view, expire. HEAD is refused (405).',
    ),
    ApiJsonResponse(200, { type: AuditLogResponse, description: 'One page of audit entries.' }),
    ApiBadToken(', or the page parameter is not an integer from 1 to 200 or not a scalar (`Invalid page parameter`)'),
    ApiHeadRefused(),
  );

export const ApiRespondToRequest = () =>
  applyDecorators(
    Tag(),
    ApiOperation({
      operationId: 'respondToRequest',
      summary: 'Answer a request (anyone with its link)',
      description:
        'Sends the one answer; no account needed. The passphrase as for a push\'s retrieval (X-Passphrase header, or the `passphrase` query parameter). ' +
        `Of two answers only the first is taken: the second gets a 409. Also as \`multipart/form-data\` (\`request[response]\`, with files as \`request[files][]\` parts when the request takes them). ${FILE_LIMITS}`,
    }),
    UrlToken(),
    ApiNoAuthentication(),
    ApiHeader({ name: 'X-Passphrase', required: false, description: "The request's passphrase; preferred over the query parameter.", schema: { type: 'string' } }),
    ApiConsumes('application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'),
    ApiExtension('x-form-body', RESPOND_FORM_BODY),
    ApiBody({ type: RespondBody, examples: { text: { summary: 'A text answer', value: { request: { response: 'hunter2' } } } } }),
    ApiJsonResponse(200, { type: PublicRequestResponse, description: 'Taken: the request is `ready` (nothing of the message or the answer is echoed).', headers: NO_STORE }),
    ApiErrorResponse(400, 'The body is not valid JSON or form data, or `request` is missing or empty.', {
      examples: { missing: { summary: '`request` missing or empty', value: { error: 'param is missing or the value is empty or invalid: request' } } },
    }),
    ApiErrorResponse(401, 'The passphrase is missing or wrong.', {
      schema: { oneOf: [{ $ref: getSchemaPath(PassphraseErrorResponse) }, { $ref: getSchemaPath(ErrorResponse) }] },
      models: [PassphraseErrorResponse, ErrorResponse],
      examples: { passphrase: { summary: 'Passphrase missing or wrong', value: { error: 'That passphrase is incorrect.', message: 'This push requires a passphrase. Provide it with the passphrase query parameter or the X-Passphrase header.' } } },
    }),
    ApiNotFound(`No request has this token, or it is closed. ${OFF}`),
    ApiErrorResponse(409, 'The request has been answered already.', { example: ANSWERED }),
    ApiTooLarge(),
    ApiBodyTimeout(),
    ApiUnsupportedBody(),
    ApiValidationFailed('The answer breaks a rule: `response` missing (without files), blank or too long; files on a request that takes none, or too many.'),
    ApiTooManyRequests('Too many requests from this address, or too many wrong passphrases for this request in the last minute.', {
      passphrase: { summary: 'Too many wrong passphrases', value: { error: 'Too many failed passphrase attempts. Try again later.' } },
    }),
    ApiBodyServiceUnavailable(),
  );

const FILE_HEADERS = {
  'Content-Disposition': ['`attachment` with the filename (RFC 6266 `filename*` for non-ASCII names).', { type: 'string' }],
  'Content-Length': ['Bytes in this answer.', { type: 'integer', minimum: 0 }],
  'Cache-Control': ['Never stored by browsers or proxies.', { type: 'string', enum: ['no-store'] }],
} satisfies Parameters<typeof ApiFileResponse>[2];

export const ApiDownloadRequestFile = () =>
  applyDecorators(
    Tag(),
    ApiOperation({
      operationId: 'downloadRequestFile',
      summary: "Download a request's file",
      description:
        "The `url` of a file in a read's `files`: a signed link that works for PWP__FILES__LINK_LIFETIME_SECONDS (5 minutes) while the request is not closed, served decrypted with `Range` support. A HEAD answers the headers alone. A forged, altered, lapsed or foreign link, or a closed request, is a plain 404.",
    }),
    UrlToken(),
    ApiParam({ name: 'link', description: 'The signed part of the link, as the read gave it.', schema: { type: 'string' } }),
    ApiNoAuthentication(),
    ApiFileResponse(200, 'The whole file, with its own Content-Type.', FILE_HEADERS),
    ApiFileResponse(206, 'The requested byte range.', { ...FILE_HEADERS, 'Content-Range': ['`bytes start-end/size`.', { type: 'string' }] }),
    ApiBadToken(),
    ApiNotFound(`No such request, or the link is not a valid, current link for one of its files. ${OFF}`),
    ApiErrorResponse(416, 'The range starts past the end of the file (Content-Range: `bytes */size`).', { example: 'Range not satisfiable.' }),
    ApiTooManyRequests(),
    ApiServiceUnavailable(),
  );
