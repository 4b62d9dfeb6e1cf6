import { Injectable } from '@nestjs/common';
import { parse as parseCookies, serialize } from 'cookie';
import type { Request, Response } from 'express';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { type AuthenticatedUser, SESSION_LIFETIME_MS, SessionsService } from '@app/auth';
import { ForbiddenError } from '@app/common';
import { FieldCipher, randomToken } from '@app/crypto';

const CSRF_COOKIE = 'pwpush_csrf';
const SESSION_COOKIE = 'pwpush_session';
/** Over https: a cookie only this exact origin, over https, can set (no Domain, Path=/, Secure). */
const HOST_PREFIX = '__Host-';
/**
 * Sessions started before cookies took the __Host- prefix have 43-character tokens (newer ones
 * 44; see SessionsService). Such a token is still read under the unprefixed name over https, so
 * the upgrade signs nobody out; a token issued since cannot be planted under that name. They all
 * lapse within SESSION_LIFETIME_MS of the upgrade.
 */
const LEGACY_SESSION_TOKEN = /^[\w-]{43}$/;
export const CSRF_FIELD = '_csrf';
export const EXPIRED_FORM = 'This form has expired. Reload the page and try again.';

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

  constructor(
    private readonly sessions: SessionsService,
    cipher: FieldCipher,
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

  /** Refuses a POST whose form token does not match the browser's CSRF cookie (403). */
  checkCsrf(request: Request): void {
    const secret = cookieOf(request, CSRF_COOKIE);
    const given = formField(request, CSRF_FIELD);
    if (!secret || given === undefined || !safeEqual(given, this.sign(secret))) throw new ForbiddenError(EXPIRED_FORM);
  }

  /** The signed-in person, if the browser's session is current. */
  async user(request: Request): Promise<AuthenticatedUser | null> {
    const token = sessionToken(request);
    return token ? this.sessions.userOf(token) : null;
  }

  /** Signs in: a new session (ending the browser's previous one) and a new CSRF cookie. */
  async signIn(request: Request, response: Response, user: AuthenticatedUser): Promise<void> {
    await this.signOut(request, response);
    setCookie(request, response, SESSION_COOKIE, await this.sessions.start(user), SESSION_LIFETIME_MS / 1000);
    setCookie(request, response, CSRF_COOKIE, randomToken(24));
  }

  async signOut(request: Request, response: Response): Promise<void> {
    const token = sessionToken(request);
    if (!token) return;
    await this.sessions.end(token);
    // A pre-upgrade cookie under the old name stays behind, naming a session that no longer exists.
    setCookie(request, response, SESSION_COOKIE, '', 0);
  }

  private sign(secret: string): string {
    return createHmac('sha256', this.key).update(secret).digest('base64url');
  }
}

/** `name`, with the __Host- prefix over https. */
function cookieName(request: Request, name: string): string {
  return request.secure ? `${HOST_PREFIX}${name}` : name;
}

function cookieOf(request: Request, name: string): string | undefined {
  return parseCookies(request.headers.cookie ?? '')[cookieName(request, name)];
}

/** The session cookie's token; over https also a pre-upgrade token under the old name (LEGACY_SESSION_TOKEN). */
function sessionToken(request: Request): string | undefined {
  const token = cookieOf(request, SESSION_COOKIE);
  if (token || !request.secure) return token;
  const legacy = parseCookies(request.headers.cookie ?? '')[SESSION_COOKIE];
  return legacy && LEGACY_SESSION_TOKEN.test(legacy) ? legacy : undefined;
}

function setCookie(request: Request, response: Response, name: string, value: string, maxAgeSeconds?: number): void {
  const options = { httpOnly: true, secure: request.secure, sameSite: 'lax', path: '/', maxAge: maxAgeSeconds } as const;
  response.append('Set-Cookie', serialize(cookieName(request, name), value, options));
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
