import { createPrivateKey, KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { EnvReader, SettingsError } from './env-reader';

/** How this service proves itself to the provider's token endpoint. */
export type OidcClientAuth =
  | { method: 'client_secret_basic'; secret: string }
  /** A JWT signed with our private key (RFC 7523); the provider holds the public half. */
  | { method: 'private_key_jwt'; privateKeyPem: string; algorithm: PrivateKeyJwtAlgorithm; keyId?: string };

export type PrivateKeyJwtAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512' | 'EdDSA';

export interface OidcSettings {
  /** The issuer identifier, exactly as the provider's discovery document must state it. */
  issuer: string;
  clientId: string;
  clientAuth: OidcClientAuth;
  /** Space-separated, always with `openid`. */
  scopes: string;
  buttonLabel: string;
  /** Lower-case domains a verified email must belong to; empty: any verified email. */
  allowedEmailDomains: string[];
  /** Whether a person the provider vouches for, with no account yet, gets one on first sign-in. */
  autoProvision: boolean;
}

export interface SignInSettings {
  /** Email and password at /users/sign_in; off, the form is gone and its POST refused. */
  passwordSignIn: boolean;
  /** Single sign-on with an OpenID Provider; undefined when PWP__OIDC__ISSUER is unset. */
  oidc?: OidcSettings;
}

const P = 'PWP__OIDC__';
/** The settings that mean nothing without an issuer: set alone, they are a mistake worth a word. */
const NEEDS_ISSUER = ['CLIENT_ID', 'CLIENT_SECRET', 'PRIVATE_KEY', 'PRIVATE_KEY_ID', 'SCOPES', 'BUTTON_LABEL', 'ALLOWED_EMAIL_DOMAINS', 'AUTO_PROVISION'];
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Single sign-on (OpenID Connect) and the password form, the PWP__OIDC__* group, and the
 * reference's PWP__DISABLE_SIGNUPS, which here means what its name says for the one way accounts
 * can appear without an administrator: no accounts created on first sign-in.
 */
export function readOidcSettings(read: EnvReader): SignInSettings {
  const issuer = read.optional(`${P}ISSUER`, isIssuer, 'must be the https URL of an OpenID Provider (http only on a loopback address: http://127.0.0.1:port, http://localhost:port), without query or fragment');
  const signupsDisabled = read.bool('PWP__DISABLE_SIGNUPS', false);
  const passwordSignIn = read.bool(`${P}PASSWORD_SIGN_IN`, true);
  if (issuer === undefined) {
    const stray = NEEDS_ISSUER.find((name) => read.isSet(`${P}${name}`));
    if (stray) throw new SettingsError(`Invalid setting ${P}${stray}: single sign-on needs ${P}ISSUER as well.`);
    if (!passwordSignIn) throw new SettingsError(`Invalid setting ${P}PASSWORD_SIGN_IN: false leaves no way to sign in without ${P}ISSUER (single sign-on).`);
    return { passwordSignIn };
  }
  const clientId = read.optional(`${P}CLIENT_ID`, (v) => v.length <= 255 && !/\s/.test(v), 'must be the client id the provider gave this service (no whitespace)');
  if (clientId === undefined) throw new SettingsError(`Invalid setting ${P}CLIENT_ID: required with ${P}ISSUER.`);
  const scopes = read.list(`${P}SCOPES`, (v) => SCOPE.test(v), 'must be scope names separated by spaces', /\s+/);
  if (scopes.length > 0 && !scopes.includes('openid')) throw new SettingsError(`Invalid setting ${P}SCOPES: must include openid.`);
  return {
    passwordSignIn,
    oidc: {
      issuer,
      clientId,
      clientAuth: readClientAuth(read),
      scopes: scopes.length > 0 ? scopes.join(' ') : 'openid email profile',
      buttonLabel: read.optional(`${P}BUTTON_LABEL`, (v) => v.length <= 80, 'must be at most 80 characters') ?? 'Sign in with single sign-on',
      allowedEmailDomains: read
        .list(`${P}ALLOWED_EMAIL_DOMAINS`, (v) => DOMAIN.test(v.toLowerCase().replace(/^@/, '')), 'must be comma-separated domains such as example.com')
        .map((domain) => domain.toLowerCase().replace(/^@/, '')),
      autoProvision: read.bool(`${P}AUTO_PROVISION`, true) && !signupsDisabled,
    },
  };
}

function readClientAuth(read: EnvReader): OidcClientAuth {
  const secret = read.optionalString(`${P}CLIENT_SECRET`);
  const privateKeyPem = read.optionalString(`${P}PRIVATE_KEY`);
  if ((secret === undefined) === (privateKeyPem === undefined)) {
    throw new SettingsError(
      `Invalid setting ${P}CLIENT_SECRET: set it (client_secret_basic), or ${P}PRIVATE_KEY_FILE naming a PEM private key (private_key_jwt); one of the two.`,
    );
  }
  if (secret !== undefined) return { method: 'client_secret_basic', secret };
  const keyId = read.optional(`${P}PRIVATE_KEY_ID`, (v) => v.length <= 200 && !/\s/.test(v), 'must be the key id (kid) the provider knows the key by, without whitespace');
  return { method: 'private_key_jwt', privateKeyPem: privateKeyPem!, algorithm: signingAlgorithm(privateKeyPem!), keyId };
}

/** The JWS algorithm of a PEM private key; the message never quotes the key. */
function signingAlgorithm(pem: string): PrivateKeyJwtAlgorithm {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new SettingsError(`Invalid setting ${P}PRIVATE_KEY: not a PEM private key (PKCS#8 "BEGIN PRIVATE KEY", or "BEGIN RSA/EC PRIVATE KEY").`);
  }
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  if (key.asymmetricKeyType === 'ec' && curve === 'prime256v1') return 'ES256';
  if (key.asymmetricKeyType === 'ec' && curve === 'secp384r1') return 'ES384';
  if (key.asymmetricKeyType === 'ec' && curve === 'secp521r1') return 'ES512';
  throw new SettingsError(`Invalid setting ${P}PRIVATE_KEY: must be an RSA, EC (P-256, P-384, P-521) or Ed25519 key.`);
}

/** https, or http on a loopback address (local development and tests); no query or fragment. */
function isIssuer(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  if (url.search || url.hash || url.username || url.password || value.includes('?') || value.includes('#')) return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && (LOOPBACK_NAMES.has(url.hostname) || (isIP(url.hostname) === 4 && url.hostname.startsWith('127.')));
}
