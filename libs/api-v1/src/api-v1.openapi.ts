import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiOptionalAuthentication, ApiRequiredAuthentication } from '@app/auth';
import {
  ApiErrorResponse,
  ApiJsonResponse,
  ApiNotFound,
  ApiServiceUnavailable,
  ApiTooManyRequests,
  ApiBodyServiceUnavailable,
  ApiBodyTimeout,
  ApiUnsupportedBody,
  ApiValidationFailed,
  ErrorResponse,
  PassphraseErrorResponse,
} from '@app/common';
import { OwnedPushResponse, PreviewResponse, PushResponseDto, RetrievedPushResponseDto } from '@app/pushes';
import { V1VersionResponse } from '@app/version';
import { V1AuditLogResponse } from './dto/v1-audit-log.dto';
import { V1FilePushBody, V1PasswordBody, V1UrlBody } from './dto/v1-create.dto';

/**
 * API v1 in the OpenAPI document: deprecated operations under their own tag, each naming the v2
 * operation that replaces it (whose description holds the details: statuses and bodies are the same).
 */

export const V1_TAG = 'api-v1';
const DEPRECATION =
  'Deprecated: answers carry `Deprecation` (RFC 9745) and `Link: <{base}/api-docs>; rel="successor-version"`; PWP__API_V1__ENABLED=false turns v1 off (404).';
const UNDER_EACH = 'The same route answers under `/p`, `/f` and `/r` alike.';

const V1Operation = (operationId: string, summary: string, successor: string, more = '') =>
  applyDecorators(
    ApiTags(V1_TAG),
    ApiOperation({
      operationId,
      summary,
      deprecated: true,
      description: `${more}${more ? ' ' : ''}Replaced by \`${successor}\`. Pushes carry v1's \`json_url\`: \`{base}/p/{url_token}.json\`. ${DEPRECATION}`,
    }),
    ApiNotFound('No push has this token, or API v1 is turned off here (PWP__API_V1__ENABLED=false).'),
  );

const UrlToken = () => ApiParam({ name: 'url_token', description: "The push's token.", schema: { type: 'string' } });
const ApiCommonFailures = () => applyDecorators(ApiTooManyRequests(), ApiServiceUnavailable());
/** 401 for a missing or wrong passphrase (with `message`), or for the credential. */
const ApiPassphraseOrCredential = (description: string) =>
  ApiErrorResponse(401, description, {
    schema: { oneOf: [{ $ref: getSchemaPath(PassphraseErrorResponse) }, { $ref: getSchemaPath(ErrorResponse) }] },
    models: [PassphraseErrorResponse, ErrorResponse],
  });
const ApiCredentialRefused = () => ApiErrorResponse(401, 'The API token sent is not valid, or one is needed and none was sent.', { example: 'Invalid or revoked API token.' });

const CREATES: Record<'password' | 'file_push' | 'url', { body: new () => unknown; path: string; more: string }> = {
  password: {
    body: V1PasswordBody,
    path: '/p.json',
    more: 'A text, URL or QR push (`kind`), or a file push when `files` is given (whatever `kind` says), which needs an API token. Any origin may call it (CORS), as in the reference.',
  },
  file_push: { body: V1FilePushBody, path: '/f.json', more: 'A file push: files as `file_push[files][]` parts (or base64 in JSON). Needs an API token.' },
  url: { body: V1UrlBody, path: '/r.json', more: 'A URL push: `payload` is the URL. Needs an API token.' },
};

export const ApiV1Create = (wrapper: keyof typeof CREATES) =>
  applyDecorators(
    V1Operation(
      `v1Create${{ password: 'Push', file_push: 'FilePush', url: 'UrlPush' }[wrapper]}`,
      `Create a push (\`${CREATES[wrapper].path}\`)`,
      'POST /api/v2/pushes',
      `${CREATES[wrapper].more} The body wraps the push in \`${wrapper}\`, as JSON, form fields (\`${wrapper}[payload]\`, ...) or multipart (\`${wrapper}[files][]\`).`,
    ),
    wrapper === 'password' ? ApiOptionalAuthentication() : ApiRequiredAuthentication(),
    ApiConsumes('application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'),
    ApiBody({ type: CREATES[wrapper].body }),
    ApiJsonResponse(201, { type: OwnedPushResponse, description: 'The push, with its owner data and without the payload.' }),
    ApiErrorResponse(400, `The body cannot be read, or \`${wrapper}\` is missing or empty.`, { example: `param is missing or the value is empty or invalid: ${wrapper}` }),
    ApiCredentialRefused(),
    ApiErrorResponse(413, 'The body or a file is over a limit.', { example: 'Request body is too large (limit 13MiB).' }),
    ApiBodyTimeout(),
    ApiUnsupportedBody(),
    ApiValidationFailed(),
    ApiTooManyRequests(),
    ApiBodyServiceUnavailable(),
  );

export const ApiV1Retrieve = () =>
  applyDecorators(
    V1Operation('v1RetrievePush', 'Retrieve a push (counts a view)', 'GET /api/v2/pushes/{url_token}', `${UNDER_EACH} HEAD is refused (405): it would count a view.`),
    UrlToken(),
    ApiOptionalAuthentication(),
    ApiJsonResponse(200, { type: RetrievedPushResponseDto, description: 'The push with its payload (null once expired).' }),
    ApiPassphraseOrCredential('The passphrase is missing or wrong (with `message`), or the API token sent is not valid.'),
    ApiCommonFailures(),
  );

export const ApiV1Preview = () =>
  applyDecorators(
    V1Operation('v1PreviewPush', "A push's secret URL, without counting a view", 'GET /api/v2/pushes/{url_token}/preview', UNDER_EACH),
    UrlToken(),
    ApiOptionalAuthentication(),
    ApiJsonResponse(200, { type: PreviewResponse, description: "The push's html_url." }),
    ApiCommonFailures(),
  );

export const ApiV1Audit = () =>
  applyDecorators(
    V1Operation('v1GetPushAudit', "A push's audit log (owner only)", 'GET /api/v2/pushes/{url_token}/audit', `v2's entries under \`views\`. ${UNDER_EACH}`),
    UrlToken(),
    ApiRequiredAuthentication(),
    ApiJsonResponse(200, { type: V1AuditLogResponse, description: 'One page of audit entries, oldest first.' }),
    ApiErrorResponse(400, 'The page parameter is not an integer from 1 to 200.', { example: 'Invalid page parameter' }),
    ApiCredentialRefused(),
    ApiErrorResponse(403, 'The push belongs to someone else (or to nobody).', { example: "That push doesn't belong to you." }),
    ApiCommonFailures(),
  );

export const ApiV1Delete = () =>
  applyDecorators(
    V1Operation('v1DeletePush', 'Expire a push now', 'DELETE /api/v2/pushes/{url_token}', UNDER_EACH),
    UrlToken(),
    ApiOptionalAuthentication(),
    ApiJsonResponse(200, { type: PushResponseDto, description: 'The push, now expired and deleted (an expired push answers unchanged).' }),
    ApiPassphraseOrCredential('An anonymous caller may not delete this push, the API token sent is not valid, or a viewer gave a wrong passphrase (with `message`).'),
    ApiErrorResponse(403, 'The caller is authenticated but neither the owner nor allowed as a viewer.', { example: 'That push is not deletable by viewers.' }),
    ApiCommonFailures(),
  );

export const ApiV1List = (expired: boolean) =>
  applyDecorators(
    V1Operation(
      expired ? 'v1ListExpiredPushes' : 'v1ListActivePushes',
      expired ? "The caller's expired pushes" : "The caller's active pushes",
      expired ? 'GET /api/v2/pushes/expired' : 'GET /api/v2/pushes/active',
      `Newest first, 50 per page; \`[]\` past the end (no Link header). ${UNDER_EACH}`,
    ),
    ApiRequiredAuthentication(),
    ApiJsonResponse(200, { type: OwnedPushResponse, isArray: true, description: 'One page of pushes, with their owner data.' }),
    ApiErrorResponse(400, 'The page parameter is not an integer from 1 to 200.', { example: 'Invalid page parameter' }),
    ApiCredentialRefused(),
    ApiCommonFailures(),
  );

export const ApiV1Version = () =>
  applyDecorators(
    ApiTags(V1_TAG),
    ApiOperation({
      operationId: 'v1GetVersion',
      summary: 'Instance version, as API v1 answers it',
      deprecated: true,
      description: `Replaced by \`GET /api/v2/version\`. Public: no token needed, and one sent is not checked. ${DEPRECATION}`,
    }),
    ApiJsonResponse(200, { type: V1VersionResponse, description: 'The instance and the legacy API version.' }),
    ApiErrorResponse(404, 'API v1 is turned off here (PWP__API_V1__ENABLED=false).', { example: 'not-found' }),
  );
