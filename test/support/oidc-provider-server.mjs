// A real OpenID Provider for the single sign-on tests: oidc-provider (a certified OpenID Provider
// library; ES modules only, so it runs here, in a process of its own, rather than inside jest).
//
//   node test/support/oidc-provider-server.mjs   (settings from the environment, below)
//
// PORT              where to listen, on 127.0.0.1; the issuer is http://127.0.0.1:PORT
// REDIRECT_URIS     comma-separated redirect URIs of the clients (the apps' callbacks)
// POST_LOGOUT_URIS  comma-separated post-logout redirect URIs
// CLIENT_JWKS       the public JWK set of the private_key_jwt client, JSON
//
// Clients: "pwpush" (client_secret_basic, secret "pwpush-test-secret") and "pwpush-jwt"
// (private_key_jwt). No consent screen: every client is granted openid email profile. Sign-in
// through oidc-provider's development form (any password) as one of ACCOUNTS.
//
// For the negative cases, POST /test/tamper?with=aud|exp|nonce makes the next token response's ID
// token wrong in that one way (another audience, expired, another nonce), signed with the
// provider's own key, so only the claim check can catch it.
//
// Prints "ready <issuer>" on stdout once listening.
import { decodeJwt, exportJWK, generateKeyPair, importJWK, SignJWT } from 'jose';
import Provider from 'oidc-provider';

const ACCOUNTS = {
  alice: { email: 'alice@example.com', email_verified: true, name: 'Alice' },
  bob: { email: 'bob@example.com', email_verified: false, name: 'Bob' },
  mallory: { email: 'mallory@elsewhere.test', email_verified: true, name: 'Mallory' },
  // A Kelvin sign (U+212A) where kate@example.com has its k: another address, which toLowerCase would make hers.
  kelvin: { email: '\u212Aate@example.com', email_verified: true, name: 'Kelvin' },
};

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;
const list = (value) => (value ?? '').split(',').filter(Boolean);

const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const signingKey = { ...(await exportJWK(privateKey)), kid: 'test-signing-key', alg: 'RS256', use: 'sig' };

const common = { redirect_uris: list(process.env.REDIRECT_URIS), post_logout_redirect_uris: list(process.env.POST_LOGOUT_URIS), grant_types: ['authorization_code'], response_types: ['code'] };
const provider = new Provider(issuer, {
  clients: [
    { ...common, client_id: 'pwpush', client_secret: 'pwpush-test-secret', token_endpoint_auth_method: 'client_secret_basic' },
    ...(process.env.CLIENT_JWKS ? [{ ...common, client_id: 'pwpush-jwt', token_endpoint_auth_method: 'private_key_jwt', jwks: JSON.parse(process.env.CLIENT_JWKS) }] : []),
  ],
  jwks: { keys: [signingKey] },
  cookies: { keys: ['oidc-provider-test-cookie-key'] },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  // The claims of the requested scopes in the ID token too, as most providers send them.
  conformIdTokenClaims: false,
  findAccount: (_ctx, id) => (Object.hasOwn(ACCOUNTS, id) ? { accountId: id, claims: () => ({ sub: id, ...ACCOUNTS[id] }) } : undefined),
  // Consent-free: the person is taken to have granted every client what it asks.
  loadExistingGrant: async (ctx) => {
    const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
    grant.addOIDCScope('openid email profile');
    await grant.save();
    return grant;
  },
  features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
});

let tamper;
const TAMPER = {
  aud: (claims) => ({ ...claims, aud: 'another-client' }),
  exp: (claims) => ({ ...claims, iat: claims.iat - 7200, exp: claims.iat - 3600 }),
  nonce: (claims) => ({ ...claims, nonce: 'not-the-nonce-of-this-sign-in' }),
};
const key = await importJWK(signingKey, 'RS256');

provider.use(async (ctx, next) => {
  if (ctx.path === '/test/tamper' && ctx.method === 'POST') {
    tamper = TAMPER[ctx.query.with];
    ctx.status = tamper ? 204 : 400;
    return;
  }
  await next();
  if (ctx.path === '/token' && ctx.status === 200 && tamper && ctx.body?.id_token) {
    const claims = tamper(decodeJwt(ctx.body.id_token));
    tamper = undefined;
    ctx.body = { ...ctx.body, id_token: await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: signingKey.kid }).sign(key) };
  }
});

provider.listen(port, '127.0.0.1', () => process.stdout.write(`ready ${issuer}\n`));
