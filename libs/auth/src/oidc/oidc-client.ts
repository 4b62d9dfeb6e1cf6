import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { createPrivateKey, webcrypto } from 'node:crypto';
// ESM only (openid-client 6): Node 20.19+ require()s it from this CommonJS build; jest.config.js
// compiles it for the tests. A kept, certified library does every step of the protocol.
import * as client from 'openid-client';
import { Clock, MINUTE_MS } from '@app/common';
import { InjectSettings, type OidcClientAuth, type OidcSettings, type PrivateKeyJwtAlgorithm, type Settings } from '@app/config';
import type { ProviderIdentity } from '../sign-in.service';

/** What the browser keeps between leaving for the provider and coming back (in a sealed cookie). */
export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** What a completed sign-in at the provider gives: who the person is, and the ID token (the logout's hint). */
export interface ProviderSignIn {
  identity: ProviderIdentity;
  idToken: string;
}

/** Single sign-on cannot be used now: the provider's discovery document could not be read. */
export class SingleSignOnUnavailableError extends Error {}

/**
 * The provider's answer did not pass the checks (state, PKCE, ID token signature, iss, aud, exp,
 * nonce, RFC 9207's iss) or the provider refused. `reason` is for the log: codes and the library's
 * own words, never a code, token or secret.
 */
export class SingleSignOnFailedError extends Error {
  constructor(readonly reason: string) {
    super('The single sign-on response was refused.');
  }
}

/** How long discovery may take; then the sign-in page says single sign-on is unavailable. */
const DISCOVERY_TIMEOUT_SECONDS = 5;
/** After a failed discovery, how long before a sign-in page asks the provider again. */
const RETRY_AFTER_MS = MINUTE_MS / 2;

const KEY_ALGORITHMS: Record<PrivateKeyJwtAlgorithm, webcrypto.RsaHashedImportParams | webcrypto.EcKeyImportParams | webcrypto.Algorithm> = {
  RS256: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
  ES256: { name: 'ECDSA', namedCurve: 'P-256' },
  ES384: { name: 'ECDSA', namedCurve: 'P-384' },
  ES512: { name: 'ECDSA', namedCurve: 'P-521' },
  EdDSA: { name: 'Ed25519' },
};

/**
 * The OpenID Connect relying party, over openid-client: discovery (at start-up, and again lazily
 * while it fails, so a provider that was down at start-up is picked up without a restart), the
 * authorization code flow with PKCE (S256), state and nonce, and RP-initiated logout.
 */
@Injectable()
export class OidcClient implements OnApplicationBootstrap {
  private readonly logger = new Logger('SingleSignOn');
  private readonly settings?: OidcSettings;
  private configuration?: Promise<client.Configuration>;
  private failedAt?: number;

  constructor(
    @InjectSettings() settings: Settings,
    private readonly clock: Clock,
  ) {
    this.settings = settings.signIn.oidc;
  }

  get enabled(): boolean {
    return this.settings !== undefined;
  }

  get buttonLabel(): string {
    return this.settings?.buttonLabel ?? '';
  }

  /** Discovery starts with the app but is not waited for: the API serves whatever the provider does. */
  onApplicationBootstrap(): void {
    if (this.enabled) void this.available();
  }

  /** Whether single sign-on can be offered now; asks the provider again when the last failure is old enough. */
  async available(): Promise<boolean> {
    try {
      await this.discovered();
      return true;
    } catch {
      return false;
    }
  }

  /** The provider's authorization URL for a new sign-in, and what to keep until the callback. */
  async begin(redirectUri: string): Promise<{ url: string; pending: PendingSignIn }> {
    const configuration = await this.discovered();
    const pending = { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier() };
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: this.settings!.scopes,
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, pending };
  }

  /**
   * Completes a sign-in from the provider's redirect to `callbackUrl`: the code is exchanged (with
   * the PKCE verifier) and the ID token checked by openid-client. Throws SingleSignOnFailedError.
   */
  async finish(callbackUrl: URL, pending: PendingSignIn): Promise<ProviderSignIn> {
    const configuration = await this.discovered();
    try {
      const tokens = await client.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims()!;
      let profile: Record<string, unknown> = claims;
      // Some providers (Okta's, per scope) put the email in userinfo only; its `sub` must match the ID token's.
      if (typeof claims.email !== 'string' && configuration.serverMetadata().userinfo_endpoint) {
        profile = await client.fetchUserInfo(configuration, tokens.access_token, claims.sub);
      }
      return {
        identity: {
          issuer: claims.iss,
          subject: claims.sub,
          email: typeof profile.email === 'string' ? profile.email : undefined,
          // Microsoft Entra ID sends no email_verified; its optional claim xms_edov says the email's domain is verified by the tenant.
          emailVerified: profile.email_verified === true || profile.email_verified === 'true' || profile.xms_edov === true,
        },
        idToken: tokens.id_token!,
      };
    } catch (error) {
      throw new SingleSignOnFailedError(describe(error));
    }
  }

  /** The provider's logout URL when it offers RP-initiated logout (end_session_endpoint), else undefined. */
  async logoutUrl(idToken: string | undefined, postLogoutRedirectUri: string): Promise<string | undefined> {
    if (!this.enabled) return undefined;
    let configuration: client.Configuration;
    try {
      configuration = await this.discovered();
    } catch {
      return undefined;
    }
    if (!configuration.serverMetadata().end_session_endpoint) return undefined;
    const hint: Record<string, string> = idToken ? { id_token_hint: idToken } : {};
    return client.buildEndSessionUrl(configuration, { ...hint, client_id: this.settings!.clientId, post_logout_redirect_uri: postLogoutRedirectUri }).href;
  }

  private discovered(): Promise<client.Configuration> {
    if (!this.settings) return Promise.reject(new SingleSignOnUnavailableError('Single sign-on is not configured.'));
    if (this.failedAt !== undefined && this.clock.now() - this.failedAt >= RETRY_AFTER_MS) this.configuration = undefined;
    return (this.configuration ??= this.discover(this.settings));
  }

  private async discover(settings: OidcSettings): Promise<client.Configuration> {
    const issuer = new URL(settings.issuer);
    try {
      const configuration = await client.discovery(issuer, settings.clientId, undefined, await clientAuthentication(settings.clientAuth), {
        timeout: DISCOVERY_TIMEOUT_SECONDS,
        // Plain http only reaches a loopback issuer (the settings refuse any other).
        execute: issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [],
      });
      this.failedAt = undefined;
      return configuration;
    } catch (error) {
      this.failedAt = this.clock.now();
      this.logger.error(
        `Single sign-on is unavailable: the OpenID Provider's discovery at ${issuer.href.replace(/\/$/, '')}/.well-known/openid-configuration failed (${describe(error)}). ` +
          'Check PWP__OIDC__ISSUER (the issuer URL, reachable from this service). The API keeps serving; sign-in pages try the provider again every 30 seconds.',
      );
      throw new SingleSignOnUnavailableError('Single sign-on is unavailable.');
    }
  }
}

async function clientAuthentication(auth: OidcClientAuth): Promise<client.ClientAuth> {
  if (auth.method === 'client_secret_basic') return client.ClientSecretBasic(auth.secret);
  const der = createPrivateKey(auth.privateKeyPem).export({ format: 'der', type: 'pkcs8' });
  const key = await webcrypto.subtle.importKey('pkcs8', der, KEY_ALGORITHMS[auth.algorithm], false, ['sign']);
  return client.PrivateKeyJwt(key, auth.keyId === undefined ? undefined : { [client.modifyAssertion]: (header) => void (header.kid = auth.keyId) });
}

/**
 * An error in words fit for a log line: the library's message and code, or the provider's OAuth
 * error code. Never the error's cause or response body, which can hold tokens.
 */
function describe(error: unknown): string {
  if (error instanceof client.AuthorizationResponseError || error instanceof client.ResponseBodyError) return `the provider answered ${error.error}`;
  const words: string[] = [];
  // openid-client's own message ("something went wrong") says less than its causes (fetch failed, ECONNREFUSED).
  for (let link: unknown = error, depth = 0; link instanceof Error && depth < 4; link = link.cause, depth++) {
    const code = (link as { code?: unknown }).code;
    words.push(typeof code === 'string' ? `${link.message} (${code})` : link.message);
  }
  return words.length > 0 ? words.join(': ') : 'unknown error';
}
