import { createPrivateKey, KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { ACCOUNTS } from './account-settings';
import { Reader, SettingsError } from './env-reader';
import { flag, group, list, text } from './setting';

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

const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);
const emailDomain = (value: string): string => value.toLowerCase().replace(/^@/, '');

/**
 * Single sign-on (OpenID Connect) and the password form, the PWP__OIDC__* group. The reference's
 * PWP__DISABLE_SIGNUPS (the accounts group) also stops accounts being created at a first sign-in.
 */
export const SIGN_IN = group({
  title: 'Single sign-on (OpenID Connect)',
  intro:
    'Off while PWP__OIDC__ISSUER is unset. Register this service with the identity provider as a web application with the redirect URI ' +
    '{base}/users/auth/oidc/callback (and {base}/users/sign_in as a post-logout redirect URI); see docs/single-sign-on.md. ' +
    'Discovery failing at start-up is logged; the API keeps serving.',
  commentedOut: true,
  settings: {
    issuer: text({
      name: 'PWP__OIDC__ISSUER',
      check: {
        valid: isIssuer,
        expectation:
          'must be the https URL of an OpenID Provider (http only on a loopback address: http://127.0.0.1:port, http://localhost:port), without query or fragment',
      },
      type: 'https URL (http only on 127.0.0.1 or localhost)',
      unset: 'no single sign-on',
      example: 'https://login.microsoftonline.com/<tenant-id>/v2.0',
      meaning:
        "The OpenID Provider's issuer identifier (https; http only on 127.0.0.1 or localhost), exactly as its discovery document states it.",
    }),
    clientId: text({
      name: 'PWP__OIDC__CLIENT_ID',
      check: {
        valid: (v) => v.length <= 255 && !/\s/.test(v),
        expectation: 'must be the client id the provider gave this service (no whitespace)',
      },
      type: 'text without whitespace, at most 255 characters',
      unset: 'none; required with PWP__OIDC__ISSUER',
      meaning: 'The client id the provider gave this service.',
    }),
    clientSecret: text({
      name: 'PWP__OIDC__CLIENT_SECRET',
      secret: true,
      unset: 'none',
      meaning: 'The client secret (client_secret_basic); set it or PWP__OIDC__PRIVATE_KEY, one of the two.',
    }),
    privateKey: text({
      name: 'PWP__OIDC__PRIVATE_KEY',
      secret: true,
      type: 'PEM private key (RSA, EC P-256/P-384/P-521 or Ed25519)',
      unset: 'none',
      meaning:
        'A private key for private_key_jwt, whose public half the provider holds, usually given as PWP__OIDC__PRIVATE_KEY_FILE=/run/secrets/pwpush/oidc-key.pem; set it or PWP__OIDC__CLIENT_SECRET, one of the two.',
    }),
    privateKeyId: text({
      name: 'PWP__OIDC__PRIVATE_KEY_ID',
      check: {
        valid: (v) => v.length <= 200 && !/\s/.test(v),
        expectation: 'must be the key id (kid) the provider knows the key by, without whitespace',
      },
      unset: 'none',
      meaning: 'The key id (kid) the provider knows the private key by.',
    }),
    scopes: list({
      name: 'PWP__OIDC__SCOPES',
      check: { valid: (v) => SCOPE.test(v), expectation: 'must be scope names separated by spaces' },
      separator: /\s+/,
      default: ['openid', 'email', 'profile'],
      meaning: 'The scopes asked for; must include openid.',
    }),
    buttonLabel: text({
      name: 'PWP__OIDC__BUTTON_LABEL',
      default: 'Sign in with single sign-on',
      check: { valid: (v) => v.length <= 80, expectation: 'must be at most 80 characters' },
      meaning: "The sign-in button's text.",
    }),
    allowedEmailDomains: list({
      name: 'PWP__OIDC__ALLOWED_EMAIL_DOMAINS',
      check: { valid: (v) => DOMAIN.test(emailDomain(v)), expectation: 'must be comma-separated domains such as example.com' },
      unset: 'any verified email',
      meaning: 'Email domains allowed to sign in by single sign-on.',
    }),
    autoProvision: flag({
      name: 'PWP__OIDC__AUTO_PROVISION',
      default: true,
      meaning: "Create the account at a person's first sign-in; false: only accounts that exist, linked by verified email.",
    }),
    passwordSignIn: flag({
      name: 'PWP__OIDC__PASSWORD_SIGN_IN',
      default: true,
      meaning: 'false: no password form, and its POST is refused (needs PWP__OIDC__ISSUER).',
    }),
  },
});
const S = SIGN_IN.settings;
/** The settings that mean nothing without an issuer: set alone, they are a mistake worth a word. */
const NEEDS_ISSUER = [
  S.clientId,
  S.clientSecret,
  S.privateKey,
  S.privateKeyId,
  S.scopes,
  S.buttonLabel,
  S.allowedEmailDomains,
  S.autoProvision,
];

export function readOidcSettings(read: Reader): SignInSettings {
  const issuer = read(S.issuer);
  const signupsDisabled = read(ACCOUNTS.settings.disableSignups);
  const passwordSignIn = read(S.passwordSignIn);
  if (issuer === undefined) {
    const stray = NEEDS_ISSUER.find((setting) => read.isSet(setting));
    if (stray) throw new SettingsError(`Invalid setting ${stray.name}: single sign-on needs PWP__OIDC__ISSUER as well.`);
    if (!passwordSignIn)
      throw new SettingsError(
        'Invalid setting PWP__OIDC__PASSWORD_SIGN_IN: false leaves no way to sign in without PWP__OIDC__ISSUER (single sign-on).',
      );
    return { passwordSignIn };
  }
  const clientId = read(S.clientId);
  if (clientId === undefined) throw new SettingsError('Invalid setting PWP__OIDC__CLIENT_ID: required with PWP__OIDC__ISSUER.');
  const scopes = read(S.scopes);
  if (!scopes.includes('openid')) throw new SettingsError('Invalid setting PWP__OIDC__SCOPES: must include openid.');
  return {
    passwordSignIn,
    oidc: {
      issuer,
      clientId,
      clientAuth: readClientAuth(read),
      scopes: scopes.join(' '),
      buttonLabel: read(S.buttonLabel),
      allowedEmailDomains: read(S.allowedEmailDomains).map(emailDomain),
      autoProvision: read(S.autoProvision) && !signupsDisabled,
    },
  };
}

function readClientAuth(read: Reader): OidcClientAuth {
  const secret = read(S.clientSecret);
  const privateKeyPem = read(S.privateKey);
  if ((secret === undefined) === (privateKeyPem === undefined)) {
    throw new SettingsError(
      'Invalid setting PWP__OIDC__CLIENT_SECRET: set it (client_secret_basic), or PWP__OIDC__PRIVATE_KEY_FILE naming a PEM private key (private_key_jwt); one of the two.',
    );
  }
  if (secret !== undefined) return { method: 'client_secret_basic', secret };
  const keyId = read(S.privateKeyId);
  return { method: 'private_key_jwt', privateKeyPem: privateKeyPem!, algorithm: signingAlgorithm(privateKeyPem!), keyId };
}

/** The JWS algorithm of a PEM private key; the message never quotes the key. */
function signingAlgorithm(pem: string): PrivateKeyJwtAlgorithm {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new SettingsError(
      `Invalid setting PWP__OIDC__PRIVATE_KEY: not a PEM private key (PKCS#8 "BEGIN PRIVATE KEY", or "BEGIN RSA/EC PRIVATE KEY").`,
    );
  }
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  if (key.asymmetricKeyType === 'ec' && curve === 'prime256v1') return 'ES256';
  if (key.asymmetricKeyType === 'ec' && curve === 'secp384r1') return 'ES384';
  if (key.asymmetricKeyType === 'ec' && curve === 'secp521r1') return 'ES512';
  throw new SettingsError(`Invalid setting PWP__OIDC__PRIVATE_KEY: must be an RSA, EC (P-256, P-384, P-521) or Ed25519 key.`);
}

/** https, or http on a loopback address (local development and tests); no query or fragment. */
function isIssuer(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  if (url.search || url.hash || url.username || url.password || value.includes('?') || value.includes('#')) return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && (LOOPBACK_NAMES.has(url.hostname) || (isIP(url.hostname) === 4 && url.hostname.startsWith('127.')));
}
