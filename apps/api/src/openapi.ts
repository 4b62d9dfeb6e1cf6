import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ApiV1Module } from '@app/api-v1';
import { addSecuritySchemes, TWO_FACTOR_REQUIRED } from '@app/auth';
import { NotificationsModule } from '@app/notifications';
import { PushesModule } from '@app/pushes';
import { RequestsModule } from '@app/requests';
import { VersionModule } from '@app/version';

/** Swagger UI; the document itself is at `/api-docs.json`. */
export const OPENAPI_UI_PATH = 'api-docs';
const OPENAPI_JSON_PATH = 'api-docs.json';

const DESCRIPTION = `A self-hosted secret-sharing service: an owner pushes a secret, gets a link, the recipient retrieves it,
and the secret destroys itself after N views or N days. A drop-in replacement for Password Pusher's JSON API v2.

Errors are JSON: \`{"error": "..."}\`; 422 adds \`errors: {field: [messages]}\`; a 401 for a passphrase adds \`message\`.
Unknown routes answer 404 \`{"error": "not-found"}\`. Every response carries \`X-Request-Id\`, except the answers about a
body or URL that could not be read at all (some 400, 413 and 422 answers of create, 400 for a broken url_token).

Every \`/api/v2\` path also answers with a \`.json\` suffix on its last segment, identically, as the reference's routes do
(\`GET /api/v2/version.json\`, \`POST /api/v2/pushes.json\`, \`GET /api/v2/pushes/{url_token}.json\`, ...); file download
links excepted. HEAD on a route that counts a view is refused with 405 and \`Allow\`; HEAD on a download link answers its headers.

Owners can register webhooks (\`/api/v2/webhooks\`, tag \`webhooks\`) for events on their pushes, signed as the Standard
Webhooks specification says, and mail a push's link to recipients (\`notify_emails_to\`), as the reference does.

The reference's legacy API v1 (\`/p.json\`, \`/p/{url_token}.json\`, ..., tag \`api-v1\`) is kept for its clients and deprecated.`;

/**
 * The modules whose routes make up the client API. Operational endpoints (health, readiness,
 * metrics) are for the platform, not for API clients, and stay out of the document.
 */
const API_MODULES = [PushesModule, RequestsModule, NotificationsModule, VersionModule, ApiV1Module];

/**
 * The OpenAPI document of the app, from the controllers' metadata. Needs the Nest app to be
 * created, not initialised or listening, so it is built without touching a real database.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = addSecuritySchemes(
    new DocumentBuilder()
      .setTitle('pwpush-api')
      .setDescription(DESCRIPTION)
      // The API's version, not the package's: the document changes when the API does, not on every release.
      .setVersion('2.1')
      .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
      .addServer('/', 'The instance serving this document')
      .addTag('pushes', 'Create, retrieve, preview, list, audit and expire secrets.')
      .addTag('requests', 'Ask someone to send you a secret: they answer once through a link, only you read it, and it is destroyed when the request closes.')
      .addTag('version', 'What this instance is and which features it enables.')
      .addTag('webhooks', 'Your endpoints for events on your pushes: signed webhooks, or mail to yourself.')
      .addTag('api-v1', "The reference's legacy API v1, deprecated: each operation names its v2 successor."),
  ).build();
  return normalize(twoFactorRequired(distinctV1OperationIds(closeResponseSchemas(formBodies(SwaggerModule.createDocument(app, config, { include: API_MODULES, autoTagControllers: false }))))));
}

/**
 * Serves Swagger UI and the JSON document, and `/api` as a redirect to it; they are plain routes, outside the guards. The
 * document is built on the first request for it, so starting the app does not pay for it.
 */
export function setupOpenApi(app: INestApplication): void {
  // The reference documents its API at /api, and its version endpoint's contract says so.
  app.getHttpAdapter().get('/api', (_request: unknown, response: { redirect(status: number, url: string): void }) => response.redirect(302, `/${OPENAPI_UI_PATH}`));
  SwaggerModule.setup(OPENAPI_UI_PATH, app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: OPENAPI_JSON_PATH,
    raw: ['json'],
    customSiteTitle: 'pwpush-api',
  });
}

/** The committed form: two-space JSON with a final newline. */
export function serializeOpenApi(document: OpenAPIObject): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Response schemas get `additionalProperties: false` (unless they say otherwise), so a field the
 * API sends without documenting it fails validation. Request schemas stay open: the API ignores
 * unknown keys there.
 */
function closeResponseSchemas(document: OpenAPIObject): OpenAPIObject {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Json>;
  const seen = new Set<Json>();
  const close = (schema: unknown): void => {
    if (!isObject(schema) || seen.has(schema)) return;
    seen.add(schema);
    if (typeof schema.$ref === 'string') return close(schemas[schema.$ref.replace('#/components/schemas/', '')]);
    if (schema.type === 'object' && isObject(schema.properties) && schema.additionalProperties === undefined)
      schema.additionalProperties = false;
    for (const child of [...Object.values(isObject(schema.properties) ? schema.properties : {}), schema.items, schema.additionalProperties])
      close(child);
    for (const key of ['allOf', 'oneOf', 'anyOf'] as const) if (Array.isArray(schema[key])) (schema[key] as unknown[]).forEach(close);
  };
  for (const path of Object.values(document.paths)) {
    for (const operation of Object.values(path as Json)) {
      if (!isObject(operation) || !isObject(operation.responses)) continue;
      for (const response of Object.values(operation.responses)) {
        for (const media of Object.values(isObject(response) && isObject(response.content) ? response.content : {}))
          close((media as Json).schema);
      }
    }
  }
  return document;
}

/**
 * Nest describes every media type of a body with the JSON schema; an operation marked
 * `x-form-body` has form field names instead (`push[payload]`), which this puts in place: the
 * whole schema for multipart, and all but its file fields for urlencoded forms.
 */
function formBodies(document: OpenAPIObject): OpenAPIObject {
  for (const path of Object.values(document.paths)) {
    for (const operation of Object.values(path as Json)) {
      if (!isObject(operation) || !isObject(operation['x-form-body'])) continue;
      const schema = operation['x-form-body'] as { properties: Record<string, Json> };
      delete operation['x-form-body'];
      const content = (operation.requestBody as { content: Record<string, unknown> }).content;
      const fields = Object.fromEntries(Object.entries(schema.properties).filter(([, field]) => field.type !== 'array' || (field.items as Json).format !== 'binary'));
      content['multipart/form-data'] = { schema };
      content['application/x-www-form-urlencoded'] = { schema: { ...schema, properties: fields } };
    }
  }
  return document;
}

/**
 * API v1 serves each route under `/p`, `/f` and `/r` from one handler, so Nest gives the three
 * operations one id. The `/p` ones keep it; those under `/f` and `/r` get F or R after it.
 */
function distinctV1OperationIds(document: OpenAPIObject): OpenAPIObject {
  for (const [path, operations] of Object.entries(document.paths)) {
    const collection = /^\/([fr])\//.exec(path)?.[1];
    if (collection === undefined) continue;
    for (const operation of Object.values(operations as Json)) {
      if (isObject(operation) && typeof operation.operationId === 'string') operation.operationId += collection.toUpperCase();
    }
  }
  return document;
}

const TWO_FACTOR_403 =
  'Under PWP__REQUIRE_MFA: the token belongs to someone who signs in with a password and has not turned two-factor authentication on.';

/**
 * Every operation that takes a token may answer 403 under PWP__REQUIRE_MFA (the guard's, before
 * the handler): added to the operation's own 403, or as its 403.
 */
function twoFactorRequired(document: OpenAPIObject): OpenAPIObject {
  const example = { summary: 'Two-factor authentication required', value: { error: TWO_FACTOR_REQUIRED } };
  for (const path of Object.values(document.paths)) {
    for (const operation of Object.values(path as Json)) {
      if (
        !isObject(operation) ||
        !isObject(operation.responses) ||
        !(operation.security as Json[] | undefined)?.some((requirement) => 'bearer' in requirement)
      )
        continue;
      const own = operation.responses['403'] as { description: string; content: { 'application/json': { examples?: Json } } } | undefined;
      if (own) {
        own.description = `${own.description} Or: ${TWO_FACTOR_403[0].toLowerCase()}${TWO_FACTOR_403.slice(1)}`;
        own.content['application/json'].examples = { ...(own.content['application/json'].examples ?? {}), twoFactorRequired: example };
      } else {
        const requestId = Object.values(operation.responses)
          .map((response) => (response as { headers?: Json }).headers?.['X-Request-Id'])
          .find(Boolean);
        operation.responses['403'] = {
          description: TWO_FACTOR_403,
          ...(requestId ? { headers: { 'X-Request-Id': requestId } } : {}),
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' }, examples: { twoFactorRequired: example } },
          },
        };
      }
    }
  }
  return document;
}

const sortedByKey = <T>(record: Record<string, T> | undefined): Record<string, T> | undefined =>
  record && Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * Orders what Nest orders by module scanning or decorator application (paths, responses,
 * components) so that the committed file only changes when the API does.
 */
function normalize(document: OpenAPIObject): OpenAPIObject {
  const paths = sortedByKey(document.paths) ?? {};
  for (const path of Object.values(paths)) {
    for (const operation of Object.values(path as Json)) {
      if (isObject(operation) && isObject(operation.responses)) operation.responses = sortedByKey(operation.responses);
    }
  }
  const components = document.components && {
    ...document.components,
    schemas: sortedByKey(document.components.schemas),
    securitySchemes: sortedByKey(document.components.securitySchemes),
  };
  return { ...document, paths, ...(components ? { components } : {}) };
}
