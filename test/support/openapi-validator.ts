import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Checks every HTTP answer the e2e tests receive against the committed openapi.json: the
 * status must be documented for the operation, the body must match its schema, and headers the
 * document marks required must be there. A request to a route the document does not have must
 * get the JSON 404 of the contract, unless its path is one of the deliberate exemptions.
 */

export const OPENAPI_DOCUMENT = join(__dirname, '..', '..', 'openapi.json');

/**
 * Left out of the document on purpose: the document's own routes (and `/api`, a redirect to them), and the operational endpoints
 * (health, readiness, metrics), which are for the platform rather than API clients.
 */
export const EXEMPT_PATHS: readonly RegExp[] = [/^\/api(?:-docs(?:\.json|\/.*)?)?$/, /^\/(?:healthz|readyz|metrics)$/];

export interface ObservedResponse {
  method: string;
  /** As requested, possibly with a query string. */
  path: string;
  status: number;
  headers: Headers;
  /** The parsed JSON body, or undefined when the body is empty or not JSON. */
  body: unknown;
  text: string;
}

type Json = Record<string, unknown>;
interface HeaderSpec {
  required?: boolean;
  schema?: Json;
}
interface ResponseSpec {
  headers?: Record<string, HeaderSpec>;
  content?: Record<string, { schema?: Json }>;
}
interface Operation {
  operationId: string;
  responses: Record<string, ResponseSpec>;
}
interface Route {
  template: string;
  /** A literal segment, or a pattern for one with a parameter (`{url_token}`, `{url_token}.json`). */
  segments: (string | RegExp)[];
  literals: number;
  operations: Record<string, Operation>;
}

const SCHEMA_REF = '#/components/schemas/';

/** `{url_token}` matches any non-empty segment; `{url_token}.json` one that ends in `.json`. */
const segmentPattern = (segment: string): RegExp =>
  new RegExp(`^${segment.split(/\{[^}]+\}/).map((literal) => literal.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^/]+')}$`);
const COMPONENTS_ID = 'openapi-components';

/** Points `#/components/schemas/X` at the copy of the components registered with Ajv. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [
      key,
      key === '$ref' && typeof child === 'string' && child.startsWith(SCHEMA_REF)
        ? `${COMPONENTS_ID}#/definitions/${child.slice(SCHEMA_REF.length)}`
        : rewriteRefs(child),
    ]),
  );
}

const describeErrors = (errors: ErrorObject[] | null | undefined): string[] =>
  (errors ?? []).map((error) => {
    const extra =
      error.keyword === 'additionalProperties' ? ` (${(error.params as { additionalProperty: string }).additionalProperty})` : '';
    return `body${error.instancePath || ''} ${error.message ?? 'is invalid'}${extra}`;
  });

export class OpenApiValidator {
  private readonly ajv: Ajv;
  private readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(document: Json) {
    this.ajv = new Ajv({ allErrors: true, strict: true });
    addFormats(this.ajv);
    // OpenAPI annotations that are not JSON Schema validation keywords.
    this.ajv.addVocabulary(['example', 'xml', 'externalDocs']);
    const components = (document.components as { schemas?: Json } | undefined)?.schemas ?? {};
    this.ajv.addSchema({ $id: COMPONENTS_ID, definitions: rewriteRefs(components) });
    this.routes = Object.entries(document.paths as Record<string, Record<string, Operation>>)
      .map(([template, operations]) => {
        const segments = template.split('/').map((segment) => (segment.includes('{') ? segmentPattern(segment) : segment));
        return { template, segments, literals: segments.filter((s) => typeof s === 'string').length, operations };
      })
      // A literal segment wins over a parameter: /pushes/active is not /pushes/{url_token}.
      .sort((a, b) => b.literals - a.literals);
  }

  static load(path = OPENAPI_DOCUMENT): OpenApiValidator {
    return new OpenApiValidator(JSON.parse(readFileSync(path, 'utf8')) as Json);
  }

  /** The problems with a response, empty when it is what the document says. */
  check(response: ObservedResponse): string[] {
    const path = this.routePath(response.path);
    if (EXEMPT_PATHS.some((pattern) => pattern.test(path))) return [];
    const route = this.match(path);
    const operation = route?.operations[response.method.toLowerCase()];
    if (!route || !operation) return this.checkUnknownRoute(response);
    const key = [String(response.status), `${String(response.status)[0]}XX`, 'default'].find(
      (candidate) => candidate in operation.responses,
    );
    if (!key) {
      return [
        `status ${response.status} is not documented for ${operation.operationId} (documented: ${Object.keys(operation.responses).join(', ')})`,
      ];
    }
    const spec = operation.responses[key];
    return [...this.checkHeaders(spec, response), ...this.checkBody(spec, response, `${operation.operationId}:${key}`)];
  }

  /** Throws a readable error when the response is not what the document says. */
  assert(response: ObservedResponse): void {
    const problems = this.check(response);
    if (problems.length === 0) return;
    const route = this.match(this.routePath(response.path));
    throw new Error(
      [
        `Response does not match openapi.json: ${response.method} ${this.routePath(response.path)} → ${response.status}` +
          (route ? ` (path ${route.template})` : ' (no documented path)'),
        ...problems.map((problem) => `  - ${problem}`),
        `  body: ${response.text.slice(0, 500)}`,
      ].join('\n'),
    );
  }

  /**
   * The path without query string and with Express's optional trailing slash removed; an API
   * path's `.json` suffix is dropped, as the server does (the document names the route once).
   */
  private routePath(path: string): string {
    const bare = path.split('?')[0].split('#')[0];
    const trimmed = bare.length > 1 && bare.endsWith('/') ? bare.slice(0, -1) : bare;
    return /^\/api\/.*[^/]\.json$/.test(trimmed) && !/\/files\//.test(trimmed) ? trimmed.slice(0, -'.json'.length) : trimmed;
  }

  private match(path: string): Route | undefined {
    const segments = path.split('/');
    return this.routes.find(
      (route) =>
        route.segments.length === segments.length &&
        route.segments.every((expected, i) => (typeof expected === 'string' ? expected === segments[i] : expected.test(segments[i]))),
    );
  }

  /** Routes the document does not have must answer the contract's JSON 404. */
  private checkUnknownRoute(response: ObservedResponse): string[] {
    const problems =
      response.status === 404
        ? []
        : [
            `${response.method} ${this.routePath(response.path)} is not in the document, yet answered ${response.status} (expected the JSON 404)`,
          ];
    const validate = this.validator('ErrorResponse', { $ref: `${SCHEMA_REF}ErrorResponse` });
    if (!validate(response.body)) problems.push(...describeErrors(validate.errors));
    return problems;
  }

  private checkHeaders(spec: ResponseSpec, response: ObservedResponse): string[] {
    const problems: string[] = [];
    for (const [name, header] of Object.entries(spec.headers ?? {})) {
      const value = response.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`header ${name} is required but missing`);
        continue;
      }
      if (!header.schema) continue;
      const typed =
        header.schema.type === 'integer' || header.schema.type === 'number'
          ? /^-?\d+(\.\d+)?$/.test(value)
            ? Number(value)
            : value
          : value;
      const validate = this.validator(`header:${name}:${JSON.stringify(header.schema)}`, header.schema);
      if (!validate(typed)) problems.push(`header ${name}: ${JSON.stringify(value)} ${validate.errors?.[0]?.message ?? 'is invalid'}`);
    }
    return problems;
  }

  private checkBody(spec: ResponseSpec, response: ObservedResponse, cacheKey: string): string[] {
    const content = spec.content ?? {};
    const mediaTypes = Object.keys(content);
    if (mediaTypes.length === 0) return response.text === '' ? [] : ['a body was sent but the document declares none'];
    const contentType = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    const mediaType = mediaTypes.find((type) => type.toLowerCase() === contentType) ?? mediaTypes.find((type) => type === '*/*');
    if (!mediaType) return [`content-type ${JSON.stringify(contentType)} is not documented (documented: ${mediaTypes.join(', ')})`];
    const schema = content[mediaType].schema;
    if (!schema) return [];
    // A file's bytes: any body is one.
    if (schema.type === 'string' && schema.format === 'binary') return [];
    if (response.body === undefined) return ['the body is not JSON'];
    const validate = this.validator(`${cacheKey}:${mediaType}`, schema);
    return validate(response.body) ? [] : describeErrors(validate.errors);
  }

  private validator(key: string, schema: Json): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(rewriteRefs(schema) as Json);
      this.validators.set(key, validate);
    }
    return validate;
  }
}

let shared: OpenApiValidator | undefined;

/** The validator for the committed document, loaded once per test file. */
export function openApiValidator(): OpenApiValidator {
  return (shared ??= OpenApiValidator.load());
}

/** A fetch for generated clients that holds their answers to the same standard as `request`. */
export async function validatingFetch(input: Request): Promise<Response> {
  const response = await fetch(input);
  const text = await response.clone().text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  const url = new URL(input.url);
  openApiValidator().assert({
    method: input.method,
    path: `${url.pathname}${url.search}`,
    status: response.status,
    headers: response.headers,
    body,
    text,
  });
  return response;
}
