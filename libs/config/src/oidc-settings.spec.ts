import { generateKeyPairSync } from 'node:crypto';
import { Env, loadSettings, SettingsError } from './settings';

const BASE: Env = { PWP__OIDC__ISSUER: 'https://login.example.com/tenant', PWP__OIDC__CLIENT_ID: 'pwpush', PWP__OIDC__CLIENT_SECRET: 's3cret-value' };

function messageFor(env: Env): string {
  try {
    loadSettings(env);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('single sign-on settings', () => {
  it('is off by default, with the password form on', () => {
    expect(loadSettings({}).signIn).toEqual({ passwordSignIn: true });
  });

  it('reads the issuer, client and defaults (openid email profile, auto provisioning, any domain)', () => {
    expect(loadSettings(BASE).signIn).toEqual({
      passwordSignIn: true,
      oidc: {
        issuer: 'https://login.example.com/tenant',
        clientId: 'pwpush',
        clientAuth: { method: 'client_secret_basic', secret: 's3cret-value' },
        scopes: 'openid email profile',
        buttonLabel: 'Sign in with single sign-on',
        allowedEmailDomains: [],
        autoProvision: true,
      },
    });
  });

  it('reads scopes, label, domains (lower-cased), and lets PWP__DISABLE_SIGNUPS turn provisioning off', () => {
    const { oidc } = loadSettings({
      ...BASE,
      PWP__OIDC__SCOPES: 'openid  email groups',
      PWP__OIDC__BUTTON_LABEL: 'Sign in with Contoso',
      PWP__OIDC__ALLOWED_EMAIL_DOMAINS: 'Example.com, @corp.example.org',
      PWP__DISABLE_SIGNUPS: 'true',
      PWP__OIDC__PASSWORD_SIGN_IN: 'false',
    }).signIn;
    expect(oidc).toMatchObject({ scopes: 'openid email groups', buttonLabel: 'Sign in with Contoso', allowedEmailDomains: ['example.com', 'corp.example.org'], autoProvision: false });
    expect(loadSettings({ ...BASE, PWP__OIDC__AUTO_PROVISION: 'false' }).signIn.oidc?.autoProvision).toBe(false);
  });

  it.each(['http://127.0.0.1:8080', 'http://localhost:9000/realms/x', 'http://[::1]:1234', 'https://idp.example.com'])('accepts the issuer %s', (issuer) => {
    expect(loadSettings({ ...BASE, PWP__OIDC__ISSUER: issuer }).signIn.oidc?.issuer).toBe(issuer);
  });

  it.each(['http://idp.example.com', 'http://10.0.0.5', 'https://idp.example.com/?tenant=1', 'https://idp.example.com/#x', 'ftp://idp.example.com', 'idp.example.com'])(
    'refuses the issuer %s, naming PWP__OIDC__ISSUER',
    (issuer) => {
      expect(messageFor({ ...BASE, PWP__OIDC__ISSUER: issuer })).toMatch(/^Invalid setting PWP__OIDC__ISSUER: must be the https URL of an OpenID Provider/);
    },
  );

  it('names what is missing or inconsistent, never quoting a secret', () => {
    expect(messageFor({ PWP__OIDC__CLIENT_ID: 'x' })).toBe('Invalid setting PWP__OIDC__CLIENT_ID: single sign-on needs PWP__OIDC__ISSUER as well.');
    expect(messageFor({ PWP__OIDC__PASSWORD_SIGN_IN: 'false' })).toMatch(/^Invalid setting PWP__OIDC__PASSWORD_SIGN_IN: false leaves no way to sign in/);
    expect(messageFor({ ...BASE, PWP__OIDC__CLIENT_ID: '' })).toBe('Invalid setting PWP__OIDC__CLIENT_ID: required with PWP__OIDC__ISSUER.');
    expect(messageFor({ ...BASE, PWP__OIDC__CLIENT_SECRET: '' })).toMatch(/^Invalid setting PWP__OIDC__CLIENT_SECRET: set it/);
    expect(messageFor({ ...BASE, PWP__OIDC__PRIVATE_KEY: 'not a key' })).toMatch(/^Invalid setting PWP__OIDC__CLIENT_SECRET: set it .* one of the two\.$/);
    expect(messageFor({ ...BASE, PWP__OIDC__SCOPES: 'email profile' })).toBe('Invalid setting PWP__OIDC__SCOPES: must include openid.');
    expect(messageFor({ ...BASE, PWP__OIDC__ALLOWED_EMAIL_DOMAINS: 'example.com,not a domain' })).toMatch(/^Invalid setting PWP__OIDC__ALLOWED_EMAIL_DOMAINS/);
    const { PWP__OIDC__CLIENT_SECRET: _secret, ...withoutSecret } = BASE;
    const badKey = messageFor({ ...withoutSecret, PWP__OIDC__PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----' });
    expect(badKey).toMatch(/^Invalid setting PWP__OIDC__PRIVATE_KEY: not a PEM private key/);
    expect(badKey).not.toContain('c2VjcmV0');
  });

  it.each([
    ['rsa', { modulusLength: 2048 }, 'RS256'],
    ['ec', { namedCurve: 'P-256' }, 'ES256'],
    ['ec', { namedCurve: 'P-384' }, 'ES384'],
    ['ed25519', {}, 'EdDSA'],
  ] as const)('takes a %s private key for private_key_jwt (%j) as %s', (type, options, algorithm) => {
    const { privateKey } = generateKeyPairSync(type as 'rsa', options as { modulusLength: number });
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const { PWP__OIDC__CLIENT_SECRET: _secret, ...withoutSecret } = BASE;
    expect(loadSettings({ ...withoutSecret, PWP__OIDC__PRIVATE_KEY: pem, PWP__OIDC__PRIVATE_KEY_ID: 'key-1' }).signIn.oidc?.clientAuth).toEqual({
      method: 'private_key_jwt',
      privateKeyPem: pem.trim(),
      algorithm,
      keyId: 'key-1',
    });
  });
});
