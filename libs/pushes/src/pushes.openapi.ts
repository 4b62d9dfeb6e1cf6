import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiExtension, ApiHeader, ApiOperation, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { AuditLogResponse } from '@app/audit';
import { ApiOptionalAuthentication } from '@app/auth';
import {
  MALFORMED_URL,
  ApiErrorResponse,
  ApiFileResponse,
  ApiJsonResponse,
  ApiNotFound,
  ApiServiceUnavailable,
  ApiBodyServiceUnavailable,
  ApiBodyTimeout,
  ApiUnsupportedBody,
  ApiValidationFailed,
  ErrorResponse,
  LINK_HEADER,
  PassphraseErrorResponse,
  ApiTooManyRequests,
  WWW_AUTHENTICATE_HEADER,
} from '@app/common';
import { PUSH_KINDS } from '@app/config';
import { CreatePushBody, wrapperMissing } from './dto/create-push.dto';
import { NotifyEmailsResponse, OwnedPushResponse, PreviewResponse, PushResponse, RetrievedPushResponse } from './dto/push-response.dto';
import { NotifyEmailsInput } from './dto/create-push.dto';
import { NOTIFY_MESSAGES } from './notify-emails';

/**
 * The OpenAPI description of each pushes endpoint, one composite decorator per handler so the
 * controller stays one line per route. Statuses and bodies follow the exception filter's mapping.
 */

const PASSPHRASE_EXAMPLE = {
  error: 'That passphrase is incorrect.',
  message: 'This push requires a passphrase. Provide it with the passphrase query parameter or the X-Passphrase header.',
};
const INVALID_TOKEN = { summary: 'An unknown, revoked or blank API token', value: { error: 'Invalid or revoked API token.' } };
const AUTH_REQUIRED = { summary: 'No API token', value: { error: 'Authentication required: send Authorization: Bearer <API token>.' } };

const Tag = () => ApiTags('pushes');

const PassphraseHeader = () =>
  ApiHeader({
    name: 'X-Passphrase',
    required: false,
    description: "The push's passphrase; preferred over the `passphrase` query parameter, which it overrides.",
    schema: { type: 'string' },
  });

/** Any request with an API token that is not valid, on every endpoint but version. */
const ApiInvalidCredential = (
  description = 'The API token sent is unknown, revoked or blank (or none was sent where one is needed).',
  examples: Record<string, { summary: string; value: unknown }> = {},
) =>
  ApiErrorResponse(401, description, {
    headers: WWW_AUTHENTICATE_HEADER,
    examples: { invalidToken: INVALID_TOKEN, noToken: AUTH_REQUIRED, ...examples },
  });

/** 401 either for the passphrase (with `message`, no WWW-Authenticate) or for the credential. */
const ApiPassphraseOrCredential = (description: string, examples: Record<string, { summary: string; value: unknown }>) =>
  ApiErrorResponse(401, description, {
    schema: { oneOf: [{ $ref: getSchemaPath(PassphraseErrorResponse) }, { $ref: getSchemaPath(ErrorResponse) }] },
    models: [PassphraseErrorResponse, ErrorResponse],
    headers: { 'WWW-Authenticate': { ...WWW_AUTHENTICATE_HEADER['WWW-Authenticate'], required: false } },
    examples,
  });

const UrlToken = () =>
  ApiParam({
    name: 'url_token',
    description: "The push's token, as returned by create.",
    schema: { type: 'string' },
    example: 'fkwjfvhall1yh6ytNJMHDwbq',
  });

/** Per-IP rate limits apply everywhere; retrieval and deletion also stop a push's passphrase from being guessed. */
const ApiTooManyPassphraseAttempts = () =>
  ApiTooManyRequests(
    'Too many requests from this address, or too many wrong passphrases for this push in the last minute (even the right one is refused until then).',
    { passphrase: { summary: 'Too many wrong passphrases', value: { error: 'Too many failed passphrase attempts. Try again later.' } } },
  );

/** A url_token that is not valid percent-encoding is refused before routing. */
const ApiBadToken = (more = '') =>
  ApiErrorResponse(400, `The url_token is not valid percent-encoding${more}.`, {
    examples: { badEncoding: { summary: 'Broken percent-encoding', value: { error: MALFORMED_URL } } },
  });

/** The create body as form fields (`push[payload]`, ...) with the files as `push[files][]` parts. */
const FORM_BODY = {
  type: 'object',
  properties: {
    'push[payload]': { type: 'string', description: 'As `payload` in JSON; optional for file pushes.' },
    'push[kind]': { type: 'string', enum: [...PUSH_KINDS] },
    'push[expire_after_days]': { type: 'integer' },
    'push[expire_after_duration]': { type: 'integer' },
    'push[expire_after_views]': { type: 'integer' },
    'push[deletable_by_viewer]': { type: 'boolean' },
    'push[retrieval_step]': { type: 'boolean' },
    'push[passphrase]': { type: 'string' },
    'push[name]': { type: 'string' },
    'push[note]': { type: 'string' },
    'push[files][]': { type: 'array', items: { type: 'string', format: 'binary' }, description: 'multipart only: the files, streamed.' },
  },
};

const FILE_HEADERS = {
  'Content-Disposition': ['`attachment` with the filename (RFC 6266 `filename*` for non-ASCII names).', { type: 'string' }],
  'Content-Length': ['Bytes in this answer.', { type: 'integer', minimum: 0 }],
  'Accept-Ranges': ['Always `bytes`.', { type: 'string', enum: ['bytes'] }],
  ETag: ['Strong; for If-Range.', { type: 'string' }],
  'Cache-Control': ['Never stored by browsers or proxies.', { type: 'string', enum: ['no-store'] }],
  'X-Content-Type-Options': ['Always `nosniff`: browsers must not second-guess the type.', { type: 'string', enum: ['nosniff'] }],
} satisfies Parameters<typeof ApiFileResponse>[2];

export const ApiCreatePush = () =>
  applyDecorators(
    Tag(),
    ApiOperation({
      operationId: 'createPush',
      summary: 'Create a push',
      description:
        'Creates a secret that expires after `expire_after_views` counted views or `expire_after_days` days, whichever comes first. ' +
        'With an API token the push belongs to its user, who can then list it, read its audit log and delete it. ' +
        'The body may also be sent as `application/x-www-form-urlencoded` or `multipart/form-data` with the same fields named `push[payload]`, ' +
        '`push[expire_after_views]`, ... Files make a file push (authentication needed): as `push[files][]` parts of a multipart body, ' +
        'encrypted into storage while they stream in, or base64-encoded in a JSON body\'s `files`. Limits: PWP__FILES__MAX_FILE_UPLOADS files (10), ' +
        'PWP__FILES__MAX_FILE_SIZE per file (100 MiB), PWP__FILES__MAX_PUSH_SIZE per push (500 MiB), PWP__FILES__MAX_JSON_BODY_SIZE for a JSON body with files (32 MiB). ' +
        'A file over a limit is refused the moment it goes over (413, answered at once while the rest of the body is dropped); nothing is kept of a create that fails.',
    }),
    ApiOptionalAuthentication(),
    ApiConsumes('application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'),
    // The form encodings' field names are not the JSON's: see formBodies in apps/api/src/openapi.ts.
    ApiExtension('x-form-body', FORM_BODY),
    ApiBody({
      type: CreatePushBody,
      examples: {
        oneView: {
          summary: 'A text secret for one view',
          value: { push: { payload: 'correct horse battery staple', expire_after_views: 1 } },
        },
        guarded: {
          summary: 'With a passphrase, a label and a note',
          value: { push: { payload: 'hunter2', passphrase: 'open sesame', expire_after_days: 2, name: 'DB password', note: 'for Alice' } },
        },
        jsonFile: {
          summary: 'A file, base64-encoded (needs an API token)',
          value: { push: { files: [{ filename: 'hello.txt', content_type: 'text/plain', data: 'aGVsbG8K' }], expire_after_views: 1 } },
        },
      },
    }),
    ApiJsonResponse(201, {
      type: OwnedPushResponse,
      description: 'The push, with its owner data (`name`, `note`) and without the payload.',
    }),
    ApiErrorResponse(400, 'The body is not valid JSON or form data, or `push` is missing or empty.', {
      examples: {
        missing: { summary: '`push` missing or empty', value: { error: wrapperMissing('push') } },
        malformed: { summary: 'Malformed JSON', value: { error: 'Malformed request body: expected valid JSON.' } },
      },
    }),
    ApiInvalidCredential(
      'The API token sent is not valid; file pushes (`kind: "file"`, a `files` key or a file part), URL pushes when the instance says so (PWP__URL__REQUIRE_ACCOUNT), or any push when anonymous use is off, need one. Checked before anything else about the body.',
      {
        filePush: { summary: 'A file push without a token', value: { error: 'File pushes require authentication.' } },
        urlPush: { summary: 'A URL push without a token, where the instance requires an account for them', value: { error: 'URL pushes require authentication.' } },
      },
    ),
    ApiErrorResponse(413, "The body is over 13 MiB (room for the largest payload in any encoding; PWP__FILES__MAX_JSON_BODY_SIZE for the JSON of an authenticated create), a multipart body's fields are over 5 MiB together, a form has more than 100 fields, or a file is over a size limit.", {
      examples: {
        body: { summary: 'Body too large', value: { error: 'Request body is too large (limit 13MiB).' } },
        file: { summary: 'A file over the per-file limit', value: { error: 'A file is over the 100MiB limit.' } },
      },
    }),
    ApiBodyTimeout(),
    ApiUnsupportedBody(),
    ApiValidationFailed(
      'The push breaks a rule; `errors` names every field at fault and `error` repeats the first message. ' +
        'Files: more than PWP__FILES__MAX_FILE_UPLOADS, file pushes disabled, files on a push of another kind, or a file push without files.',
    ),
    ApiTooManyRequests(),
    ApiBodyServiceUnavailable(),
  );

const ApiListPushes = (expired: boolean) =>
  applyDecorators(
    Tag(),
    ApiOperation({
      operationId: expired ? 'listExpiredPushes' : 'listActivePushes',
      summary: expired ? "The caller's expired pushes" : "The caller's active pushes",
      description: `Newest first, 50 per page; \`[]\` past the end. A \`Link\` header points at the next page when there is one.${
        expired ? ' Pushes whose day window has elapsed are listed here even before the sweep expires them.' : ''
      }`,
    }),
    ApiJsonResponse(200, {
      type: OwnedPushResponse,
      isArray: true,
      headers: LINK_HEADER,
      description: 'One page of pushes, with their owner data.',
    }),
    ApiErrorResponse(400, 'The page parameter is not an integer from 1 to 200, or is given as a list or object (`page[]=1`).', { example: 'Invalid page parameter' }),
    ApiInvalidCredential(),
    ApiTooManyRequests(),
    ApiServiceUnavailable(),
  );

export const ApiListActivePushes = () => ApiListPushes(false);
export const ApiListExpiredPushes = () => ApiListPushes(true);

export const ApiRetrievePush = () =>
  applyDecorators(
    Tag(),
    ApiOperation({
      operationId: 'retrievePush',
      summary: 'Retrieve a push (counts a view)',
      description:
        'Returns the payload and counts a view; the view that uses up the limit still returns the payload and expires the push. HEAD is refused (405 with `Allow`): it would count a view. ' +
        'The owner retrieving with their token is not counted. An expired push answers 200 with `expired: true` and `payload: null`, without needing the passphrase. ' +
        'After 5 wrong passphrases within a minute, retrievals of the push answer 429 until the minute has passed.',
    }),
    UrlToken(),
    ApiOptionalAuthentication(),
    PassphraseHeader(),
    ApiJsonResponse(200, {
      type: RetrievedPushResponse,
      description: 'The push with its payload (null once expired).',
      headers: {
        'Cache-Control': {
          description: 'Secrets are not to be stored by browsers or proxies.',
          schema: { type: 'string', enum: ['no-store'] },
          required: true,
        },
      },
    }),
    ApiBadToken(', or `passphrase` is given more than once or as a list or object in the query'),
    ApiPassphraseOrCredential(
      'The passphrase is missing or wrong (body with `message`), or the API token sent is not valid (with WWW-Authenticate).',
      {
        passphrase: { summary: 'Passphrase missing or wrong', value: PASSPHRASE_EXAMPLE },
        invalidToken: INVALID_TOKEN,
      },
    ),
    ApiNotFound(),
    ApiTooManyPassphraseAttempts(),
    ApiServiceUnavailable(),
  );

export const ApiPreviewPush = () =>
  applyDecorators(
    Tag(),
    ApiOperation({
      operationId: 'previewPush',
      summary: "A push's secret URL, without counting a view",
      description: 'Needs no passphrase and works on expired pushes.',
    }),
    UrlToken(),
    ApiOptionalAuthentication(),
    ApiJsonResponse(200, { type: PreviewResponse, description: "The push's html_url." }),
    ApiBadToken(),
    ApiInvalidCredential(),
    ApiNotFound(),
    ApiTooManyRequests(),
    ApiServiceUnavailable(),
  );

export const ApiDownloadPushFile = () =>
  applyDecorators(
    Tag(),
    ApiOperation({
      operationId: 'downloadPushFile',
      summary: 'Download a file of a file push',
      description:
        'The `url` of a file in a retrieval\'s `files`: a signed link that works for PWP__FILES__LINK_LIFETIME_SECONDS (5 minutes), also after the view that used up the push. ' +
        'Served decrypted, as an attachment, with `Range` support (one range; `If-Range` with the ETag). Each download is audited (`file_download`); a HEAD answers the same headers without the body and audits nothing. ' +
        'A forged, altered, lapsed or foreign link, or a push deleted or past its days, is a plain 404.',
    }),
    UrlToken(),
    ApiParam({ name: 'link', description: 'The signed part of the link, as the retrieval gave it.', schema: { type: 'string' } }),
    ApiOptionalAuthentication(),
    ApiFileResponse(200, 'The whole file, with its own Content-Type.', FILE_HEADERS),
    ApiFileResponse(206, 'The requested byte range.', { ...FILE_HEADERS, 'Content-Range': ['`bytes start-end/size`.', { type: 'string' }] }),
    ApiBadToken(),
    ApiInvalidCredential(),
    ApiNotFound('No such push, or the link is not a valid, current link for one of its files.'),
    ApiErrorResponse(416, 'The range starts past the end of the file (Content-Range: `bytes */size`).', { example: 'Range not satisfiable.' }),
    ApiTooManyRequests(),
    ApiErrorResponse(500, 'The stored file failed its integrity check (it was altered in storage): none of it is sent. Past the first 64 KiB the answer has begun, so it is cut short instead.', {
      example: 'internal-error',
    }),
    ApiServiceUnavailable(),
  );

export const ApiGetPushAudit = () =>
  applyDecorators(
    Tag(),
    ApiOperation({
      operationId: 'getPushAudit',
      summary: "A push's audit log (owner only)",
      description: 'Oldest first, 50 entries per page.',
    }),
    UrlToken(),
    ApiJsonResponse(200, { type: AuditLogResponse, description: 'One page of audit entries.' }),
    ApiBadToken(', or the page parameter is not an integer from 1 to 200 or not a scalar (`Invalid page parameter`)'),
    ApiInvalidCredential(),
    ApiErrorResponse(403, 'The push belongs to someone else (or to nobody).', { example: "That push doesn't belong to you." }),
    ApiNotFound(),
    ApiTooManyRequests(),
    ApiServiceUnavailable(),
  );

export const ApiDeletePush = () =>
  applyDecorators(
    Tag(),
    ApiOperation({
      operationId: 'deletePush',
      summary: 'Expire a push now',
      description:
        'Allowed to the owner, and to anyone when `deletable_by_viewer` is true (a viewer must also give the passphrase of a protected push). ' +
        'Destroys the payload; the note and the audit log remain. An already expired push answers 200 unchanged.',
    }),
    UrlToken(),
    ApiOptionalAuthentication(),
    PassphraseHeader(),
    ApiJsonResponse(200, { type: PushResponse, description: 'The push, now expired and deleted.' }),
    ApiBadToken(', or `passphrase` is given more than once or as a list or object in the query'),
    ApiPassphraseOrCredential(
      'An anonymous caller may not delete this push (with WWW-Authenticate), the API token sent is not valid, or a viewer gave a missing or wrong passphrase (body with `message`).',
      {
        notDeletable: { summary: 'Not deletable by viewers', value: { error: 'That push is not deletable by viewers.' } },
        passphrase: { summary: 'Passphrase missing or wrong', value: PASSPHRASE_EXAMPLE },
      },
    ),
    ApiErrorResponse(403, 'The caller is authenticated but neither the owner nor allowed as a viewer.', {
      example: 'That push is not deletable by viewers.',
    }),
    ApiNotFound(),
    ApiTooManyPassphraseAttempts(),
    ApiServiceUnavailable(),
  );

export const ApiNotifyEmails = () =>
  applyDecorators(
    Tag(),
    ApiOperation({
      operationId: 'notifyPushEmails',
      summary: "Mail the push's link to more recipients (owner only)",
      description:
        'Queues a mail of the link (never the payload or passphrase) to each recipient; the audit log reports its sending (`creation_email_send`, `notify_by_email`). ' +
        'At most 5 recipients per push over all its sends, PWP__NOTIFY_BY_EMAIL__DAILY_LIMIT (500) a day per user, 5 requests a minute per user.',
    }),
    UrlToken(),
    ApiBody({ type: NotifyEmailsInput }),
    ApiJsonResponse(201, { type: NotifyEmailsResponse, description: 'The mails are queued.' }),
    ApiBadToken(),
    ApiInvalidCredential(),
    ApiErrorResponse(403, 'The push belongs to someone else (or to nobody).', { example: "That push doesn't belong to you." }),
    ApiNotFound(),
    ApiValidationFailed(
      'Mail is not available on this instance, the list or locale is invalid, the push has expired, or a limit is reached (`base`: per push or per day).',
    ),
    ApiErrorResponse(429, 'More than 5 requests in a minute by this user (Retry-After says when to try again).', { example: NOTIFY_MESSAGES.tooManyRequests }),
    ApiServiceUnavailable(),
  );
