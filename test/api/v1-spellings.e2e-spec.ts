import { auditKinds } from '../support/helpers';
import { rawRequest, type RawAnswer } from '../support/http';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * API v1's policy holds for every spelling of a v1 path, not only the canonical one (spec "API v1":
 * with PWP__API_V1__ENABLED=false its routes are 404, "/api/v1/version and every path with a
 * trailing slash included"; otherwise every answer carries Deprecation and Link). Express routes
 * loosely: a trailing slash, capitals and a percent-encoded token reach the same handler. Each
 * spelling below is either answered by v1 under its policy, or by no route at all; with v1 off,
 * none creates, views or deletes anything.
 */

const TOKEN = '{url_token}';

interface V1Route {
  method: 'GET' | 'POST' | 'DELETE' | 'OPTIONS';
  template: string;
  body?: unknown;
}

const UNDER_EACH = ['p', 'f', 'r'];
const V1_ROUTES: V1Route[] = [
  { method: 'POST', template: '/p.json', body: { password: { payload: 'spelled' } } },
  { method: 'POST', template: '/f.json', body: { file_push: { payload: 'spelled' } } },
  { method: 'POST', template: '/r.json', body: { url: { payload: 'https://example.com/spelled' } } },
  ...UNDER_EACH.flatMap((collection): V1Route[] => [
    { method: 'GET', template: `/${collection}/${TOKEN}.json` },
    { method: 'GET', template: `/${collection}/${TOKEN}/preview.json` },
    { method: 'GET', template: `/${collection}/${TOKEN}/audit.json` },
    { method: 'GET', template: `/${collection}/active.json` },
    { method: 'GET', template: `/${collection}/expired.json` },
  ]),
  { method: 'GET', template: '/api/v1/version' },
  { method: 'GET', template: '/api/v1/version.json' },
  // Last: with v1 on, these expire the push.
  ...UNDER_EACH.map((collection): V1Route => ({ method: 'DELETE', template: `/${collection}/${TOKEN}.json` })),
];

interface Spelling {
  path: string;
  /** Whether Express takes it to the v1 handler (so, with v1 on, it must be a v1 answer). */
  routed: boolean;
}

/** The ways a client can write the route's path for this push: those Express routes to v1, and near misses no route takes. */
function spellingsOf(template: string, token: string): Spelling[] {
  const write = (literal: (part: string) => string, value = token) => template.split(TOKEN).map(literal).join(value);
  const same = (part: string) => part;
  const capitals = (part: string) => part.toUpperCase();
  const hex = `%${token.charCodeAt(0).toString(16).toUpperCase()}${token.slice(1)}`;
  const spellings: Spelling[] = [
    { path: write(same), routed: true },
    { path: `${write(same)}/`, routed: true },
    { path: write(capitals), routed: true },
    { path: `${write(capitals)}/`, routed: true },
    { path: write(same).replace(/\.json$/, '.JSON'), routed: true },
    { path: `//${write(same).slice(1)}`, routed: false },
    { path: `${write(same)}//`, routed: false },
    // No route's literal is percent-decoded: only a parameter is.
    { path: write((part) => part.replace('.json', '.%6Ason').replace(/^\/([pfr])\//, (_, c: string) => `/%${c.charCodeAt(0).toString(16)}/`)), routed: false },
  ];
  if (template.includes(TOKEN)) spellings.push({ path: write(same, hex), routed: true });
  // `/api/v1/version.json` reaches /api/v1/version through the `.json` rewrite, which takes a lower-case `.json` at the very end only.
  if (template === '/api/v1/version.json') for (const spelling of spellings) spelling.routed &&= !/JSON|\/$/.test(spelling.path);
  return spellings.filter((spelling, index) => spellings.findIndex((other) => other.path === spelling.path) === index);
}

const send = (app: TestApp, route: V1Route, path: string, headers: Record<string, string>): Promise<RawAnswer> => {
  const body = route.body === undefined ? undefined : JSON.stringify(route.body);
  return rawRequest(
    new URL(`${app.baseUrl}${path}`),
    { method: route.method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }) } },
    body,
    false,
  );
};

const countPushes = async (app: TestApp): Promise<number> => Number((await app.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM pushes'))[0].n);

describe('API v1 under every spelling of its paths', () => {
  describe('turned on', () => {
    let app: TestApp;
    let owner: Record<string, string>;

    beforeAll(async () => {
      app = await startTestApp();
      owner = { authorization: `Bearer ${await app.createUser('spelled-on@example.com')}` };
    });
    afterAll(() => app.close({ drop: true }));

    it('answers each spelling Express routes to v1 as the canonical path, with Deprecation, Link and (push routes) no-store', async () => {
      const created = await send(app, V1_ROUTES[0], '/p.json', owner);
      const token = created.body.url_token as string;
      const successor = `<${app.baseUrl}/api-docs>; rel="successor-version"`;
      const wrong: string[] = [];
      for (const route of V1_ROUTES) {
        const spellings = spellingsOf(route.template, token);
        const canonical = await send(app, route, spellings[0].path, owner);
        for (const { path, routed } of spellings) {
          const answer = await send(app, route, path, owner);
          const deprecation = answer.headers.deprecation === undefined ? undefined : String(answer.headers.deprecation).replace(/^@\d+$/, '@<epoch>');
          const got = [answer.status, deprecation, answer.headers.link, answer.headers['cache-control']];
          // A near miss is no v1 answer: a 404, or /f and /r's link redirect to the same near miss under /p.
          const matches = routed
            ? JSON.stringify(got) === JSON.stringify([canonical.status, '@<epoch>', successor, route.template.startsWith('/api/') ? undefined : 'no-store'])
            : [301, 404].includes(answer.status) && deprecation === undefined && answer.headers.link === undefined;
          if (!matches) wrong.push(`${route.method} ${path}: ${JSON.stringify(got)}`);
        }
      }
      expect(wrong).toEqual([]);
    });

    it('opens POST /p.json to every origin under each spelling Express routes to it', async () => {
      const preflight = { origin: 'https://tool.example', 'access-control-request-method': 'POST' };
      for (const { path, routed } of spellingsOf('/p.json', '')) {
        const answer = await send(app, { method: 'OPTIONS', template: path }, path, preflight);
        expect([path, answer.headers['access-control-allow-origin']]).toEqual([path, routed ? '*' : undefined]);
      }
    });
  });

  describe('turned off (PWP__API_V1__ENABLED=false)', () => {
    let app: TestApp;
    let ownerToken: string;
    let owner: Record<string, string>;

    beforeAll(async () => {
      app = await startTestApp({ PWP__API_V1__ENABLED: 'false' });
      ownerToken = await app.createUser('spelled-off@example.com');
      owner = { authorization: `Bearer ${ownerToken}` };
    });
    afterAll(() => app.close({ drop: true }));

    it('answers 404 to every spelling, and none creates, views or deletes a push', async () => {
      const created = await fetch(`${app.baseUrl}/api/v2/pushes`, { method: 'POST', headers: { ...owner, 'content-type': 'application/json' }, body: JSON.stringify({ push: { payload: 'v2 only' } }) });
      const token = ((await created.json()) as { url_token: string }).url_token;
      const pushes = await countPushes(app);
      const wrong: string[] = [];
      for (const route of V1_ROUTES) {
        for (const { path, routed } of spellingsOf(route.template, token)) {
          const answer = await send(app, route, path, owner);
          const answered = routed ? answer.status === 404 && answer.text === '{"error":"not-found"}' : [301, 404].includes(answer.status);
          if (!answered || answer.headers.deprecation !== undefined) wrong.push(`${route.method} ${path}: ${answer.status} ${answer.text.slice(0, 80)}`);
        }
      }
      expect(wrong).toEqual([]);
      expect(await countPushes(app)).toBe(pushes);
      expect(await auditKinds(app.baseUrl, token, ownerToken)).toEqual(['creation']);
      expect((await send(app, { method: 'GET', template: '' }, `/api/v2/pushes/${token}`, owner)).body).toMatchObject({ payload: 'v2 only', expired: false });
    });
  });
});
