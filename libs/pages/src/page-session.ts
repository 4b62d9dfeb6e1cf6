import { Injectable } from '@nestjs/common';
import { parse as parseCookies, serialize } from 'cookie';
import type { Request, Response } from 'express';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { type AuthenticatedUser, type PendingSignIn, type SessionOptions, SessionsService, type SignInMethodUsed, SignInService } from '@app/auth';
import { clientInfoOf, Clock, ForbiddenError, MINUTE_MS } from '@app/common';
import { InjectSettings, type Settings } from '@app/config';
import { FieldCipher, randomToken } from '@app/crypto';
import { text } from './page-text';

const CSRF_COOKIE = 'pwpush_csrf';
const SESSION_COOKIE = 'pwpush_session';
/** A single sign-on on its way through the provider: state, nonce and PKCE verifier, sealed. */
const SIGN_IN_COOKIE = 'pwpush_oidc';
/** Time to sign in at the provider; a callback after it is refused. */
const SIGN_IN_LIFETIME_MS = 10 * MINUTE_MS;
const SIGN_IN_CONTEXT = 'oidc-pending-sign-in';
/** Over https: a cookie only this exact origin, over https, can set (no Domain, Path=/, Secure). */
const HOST_PREFIX = '__Host-';
/**
 * Sessions started before cookies took the __Host- prefix have 43-character tokens (newer ones
 * 44; see SessionsService). Such a token is still read under the unprefixed name over https, so
 * the upgrade signs nobody out; a token issued since cannot be planted under that name. They all
 * lapse as sessions do (PWP__LOGIN_SESSION_TIMEOUT, or a week when remembered).
 */
const LEGACY_SESSION_TOKEN = /^[\w-]{43}$/;
export const CSRF_FIELD = '_csrf';

/** A text field of the form a page POSTed; missing, or anything but text, reads as undefined. */
export function formField(request: Request, name: string): string | undefined {
  const value = (request.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The pages' cookies, in one place: the CSRF cookie behind every form and the session of a
 * signed-in person. Both are HttpOnly, SameSite=Lax, Path=/; when the request came over https
 * (directly, or per a trusted proxy's X-Forwarded-Proto) also Secure and named with the __Host-
 * prefix, so that neither a sibling subdomain nor a plain-http response can set them for this
 * host (a planted session cookie would sign a person into someone else's account).
 *
 * CSRF: a random cookie per browser, and in each form an HMAC of it (keyed from the master key),
 * checked on every POST. Another site can make a browser send the cookie, but cannot read it or
 * the pages, so it cannot produce the field.
 */
@Injectable()
export class PageSession {
  private readonly key: Buffer;
  private readonly users = new WeakMap<Request, Promise<AuthenticatedUser | null>>();

  constructor(
    private readonly sessions: SessionsService,
    private readonly signIns: SignInService,
    private readonly cipher: FieldCipher,
    private readonly clock: Clock,
    @InjectSettings() private readonly settings: Settings,
  ) {
    this.key = cipher.deriveKey('page-csrf');
  }

  /** The form token of this browser, setting its CSRF cookie first when it has none. */
  csrfToken(request: Request, response: Response): string {
    let secret = cookieOf(request, CSRF_COOKIE);
    if (!secret || !/^[\w-]{32}$/.test(secret)) {
      secret = randomToken(24);
      setCookie(request, response, CSRF_COOKIE, secret);
      // Later code in this request reads what the browser will send from now on.
      request.headers.cookie = serialize(cookieName(request, CSRF_COOKIE), secret);
    }
    return this.sign(secret);
  }

  /**
   * Refuses a POST whose form token does not match the browser's CSRF cookie (403). `fields`: the
   * form's fields read so far, for a multipart body checked before its files are stored.
   */
  checkCsrf(request: Request, fields: unknown = request.body): void {
    const secret = cookieOf(request, CSRF_COOKIE);
    const given = (fields as Record<string, unknown> | undefined)?.[CSRF_FIELD];
    if (!secret || typeof given !== 'string' || !safeEqual(given, this.sign(secret))) throw new ForbiddenError(text('error.expiredForm'));
  }

  /**
   * The signed-in person, if the browser's session is current (never while PWP__DISABLE_LOGINS is
   * on); looked up once per request (the language choice asks first).
   */
  user(request: Request): Promise<AuthenticatedUser | null> {
    let user = this.users.get(request);
    if (!user) {
      const token = sessionToken(request);
      user = token && !this.settings.accounts.disableLogins ? this.sessions.userOf(token) : Promise.resolve(null);
      this.users.set(request, user);
    }
    return user;
  }

  /** The browser's session token, for a change that ends the person's other sessions. */
  token(request: Request): string | undefined {
    return sessionToken(request);
  }

  /**
   * Signs in: a new session (ending the browser's previous one) and a new CSRF cookie; the security
   * log says how. A single sign-on passes the provider's ID token, kept for the provider's logout.
   * Without "remember me" the cookie lasts until the browser closes, and the session until
   * PWP__LOGIN_SESSION_TIMEOUT passes without a request.
   */
  async signIn(request: Request, response: Response, user: AuthenticatedUser, options: SessionOptions & { method: SignInMethodUsed }): Promise<void> {
    await this.signOut(request, response);
    this.users.delete(request);
    const lifetimeMs = SessionsService.cookieLifetimeMs(options);
    setCookie(request, response, SESSION_COOKIE, await this.sessions.start(user, options), lifetimeMs === undefined ? undefined : lifetimeMs / 1000);
    setCookie(request, response, CSRF_COOKIE, randomToken(24));
    await this.signIns.completed(user, clientInfoOf(request), options.method);
  }

  /** Ends the browser's session; what it knew of a single sign-on (for the provider's logout). */
  async signOut(request: Request, response: Response): Promise<{ idToken?: string }> {
    const token = sessionToken(request);
    if (!token) return {};
    this.users.delete(request);
    const ended = await this.sessions.end(token);
    // A pre-upgrade cookie under the old name stays behind, naming a session that no longer exists.
    setCookie(request, response, SESSION_COOKIE, '', 0);
    return ended;
  }

  /**
   * Keeps a single sign-on's state, nonce and PKCE verifier in an HttpOnly cookie until the
   * provider sends the browser back: sealed (AES-256-GCM under a key derived from the master key),
   * so it can be neither read nor forged, and dated, so it works for SIGN_IN_LIFETIME_MS only.
   */
  startSignIn(request: Request, response: Response, pending: PendingSignIn): void {
    const sealed = this.cipher.encrypt(JSON.stringify({ ...pending, expiresAt: this.clock.now() + SIGN_IN_LIFETIME_MS }), SIGN_IN_CONTEXT);
    setCookie(request, response, SIGN_IN_COOKIE, sealed.toString('base64url'), SIGN_IN_LIFETIME_MS / 1000);
  }

  /** The browser's pending single sign-on, once: the cookie is cleared, so a callback cannot be played twice with it. */
  takeSignIn(request: Request, response: Response): PendingSignIn | undefined {
    const value = cookieOf(request, SIGN_IN_COOKIE);
    if (value === undefined) return undefined;
    setCookie(request, response, SIGN_IN_COOKIE, '', 0);
    try {
      const { state, nonce, codeVerifier, expiresAt } = JSON.parse(this.cipher.decrypt(Buffer.from(value, 'base64url'), SIGN_IN_CONTEXT)) as PendingSignIn & { expiresAt: number };
      return expiresAt > this.clock.now() ? { state, nonce, codeVerifier } : undefined;
    } catch {
      return undefined;
    }
  }

  private sign(secret: string): string {
    return createHmac('sha256', this.key).update(secret).digest('base64url');
  }
}

/** `name`, with the __Host- prefix over https (cookieOf and setCookie use it: the pages' other cookies get the same flags). */
function cookieName(request: Request, name: string): string {
  return request.secure ? `${HOST_PREFIX}${name}` : name;
}

export function cookieOf(request: Request, name: string): string | undefined {
  return parseCookies(request.headers.cookie ?? '')[cookieName(request, name)];
}

/** The session cookie's token; over https also a pre-upgrade token under the old name (LEGACY_SESSION_TOKEN). */
function sessionToken(request: Request): string | undefined {
  const token = cookieOf(request, SESSION_COOKIE);
  if (token || !request.secure) return token;
  const legacy = parseCookies(request.headers.cookie ?? '')[SESSION_COOKIE];
  return legacy && LEGACY_SESSION_TOKEN.test(legacy) ? legacy : undefined;
}

export function setCookie(request: Request, response: Response, name: string, value: string, maxAgeSeconds?: number): void {
  const options = { httpOnly: true, secure: request.secure, sameSite: 'lax', path: '/', maxAge: maxAgeSeconds } as const;
  response.append('Set-Cookie', serialize(cookieName(request, name), value, options));
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
