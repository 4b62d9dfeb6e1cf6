import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import QRCode from 'qrcode';
import { type AuthenticatedUser, type Proof, TWO_FACTOR_LIMITS, TwoFactorService } from '@app/auth';
import { clientInfoOf, TooManyRequestsError } from '@app/common';
import { SignInAttempts } from '@app/rate-limit';
import { PasswordGuesses } from './password-guesses';
import { labelledSvg } from './owner-pages';
import type { PageResult } from './page-responder';
import { cookieOf, formField, PageSession, setCookie } from './page-session';
import { text } from './page-text';

/** Where setup starts; PWP__REQUIRE_MFA sends people here. */
export const TWO_FACTOR_SETUP_PATH = '/user/two_factor/backup_codes';
const OVERVIEW: PageResult = { redirect: '/user/two_factor', status: 303 };
const SIGN_IN: PageResult = { redirect: '/users/sign_in', status: 303 };
const SIGNED_IN: PageResult = { redirect: '/users/token', status: 303 };
/** The browser's half of a sign-in waiting for its code: a random token, the row holds its hash. */
const CHALLENGE_COOKIE = 'pwpush_2fa';

const field = (request: Request, name: string): string => formField(request, name) ?? '';
const proofOf = (request: Request): Proof => ({ password: field(request, 'current_password'), code: field(request, 'code').trim() });

/**
 * Two-factor authentication's pages: the setup (/user/two_factor/backup_codes shows the recovery
 * codes once, /user/two_factor/verify the QR code and the key, POST /user/two_factor turns it on
 * with a code), turning it off (DELETE /user/two_factor as a form sends it: a POST with
 * `_method=delete`; with the password or a code), new recovery codes, and the sign-in's second step, which AccountPages
 * hands over after the right password. Wrong passwords and codes count toward the sign-in limits
 * (SignInAttempts, shared through Redis), as wrong passwords at sign-in do.
 */
@Injectable()
export class TwoFactorPages {
  constructor(
    private readonly twoFactor: TwoFactorService,
    private readonly session: PageSession,
    private readonly attempts: SignInAttempts,
    private readonly guesses: PasswordGuesses,
  ) {}

  async overview(request: Request): Promise<PageResult> {
    return this.signedIn(request, (user) => this.overviewPage(user));
  }

  /** Starts (or restarts) the setup, showing the new recovery codes once; signed in with two-factor on, the overview instead. */
  async backupCodes(request: Request): Promise<PageResult> {
    return this.signedIn(request, async (user) => {
      const codes = await this.twoFactor.startSetup(user);
      return codes ? codesPage(codes, true) : OVERVIEW;
    });
  }

  async verifyForm(request: Request): Promise<PageResult> {
    return this.signedIn(request, async (user) => this.verifyPage(user));
  }

  /** POST /user/two_factor: turns it on with `code`; with `_method=delete` (a form's DELETE), turns it off. */
  async submit(request: Request): Promise<PageResult> {
    if (field(request, '_method').toLowerCase() === 'delete') return this.disable(request);
    this.session.checkCsrf(request);
    return this.signedIn(request, async (user) => {
      if (await this.twoFactor.enable(user, field(request, 'code'), clientInfoOf(request)))
        return this.overviewPage(user, { notice: text('twoFactor.enabled') });
      return (await this.twoFactor.isOn(user)) ? OVERVIEW : this.verifyPage(user, text('twoFactor.wrongCode'));
    });
  }

  private async disable(request: Request): Promise<PageResult> {
    this.session.checkCsrf(request);
    return this.signedIn(request, async (user) => {
      const outcome = await this.guesses.checked(user, request, () => this.twoFactor.disable(user, proofOf(request), clientInfoOf(request)), (result) => result === 'wrong-proof');
      if (outcome === 'wrong-proof') return this.wrongProof(user);
      if (outcome === 'required') return this.overviewPage(user, { error: text('twoFactor.requiredOn'), status: 403 });
      return this.overviewPage(user, { notice: text('twoFactor.disabled') });
    });
  }

  async regenerate(request: Request): Promise<PageResult> {
    this.session.checkCsrf(request);
    return this.signedIn(request, async (user) => {
      const codes = await this.guesses.checked(user, request, () => this.twoFactor.regenerateRecoveryCodes(user, proofOf(request), clientInfoOf(request)), (result) => result === 'wrong-proof');
      if (codes === 'wrong-proof') return this.wrongProof(user);
      return codes === 'off' ? OVERVIEW : codesPage(codes, false);
    });
  }

  /** After the right password with two-factor on: the sign-in waits (in a row, named by a cookie) for the code, asked for here. */
  async askForCode(request: Request, response: Response, user: AuthenticatedUser, remember = false): Promise<PageResult> {
    const token = await this.twoFactor.challenge(user, remember);
    setCookie(request, response, CHALLENGE_COOKIE, token, TWO_FACTOR_LIMITS.challengeLifetimeMs / 1000);
    return codeForm();
  }

  /** POST /users/sign_in with `otp_attempt`: the code of the sign-in the browser's cookie names; the right one starts the session. */
  async answerCode(request: Request, response: Response): Promise<PageResult> {
    const pending = await this.twoFactor.pending(cookieOf(request, CHALLENGE_COOKIE) ?? '');
    if (!pending) return signInAgain(text('twoFactor.signInExpired'));
    const client = clientInfoOf(request);
    // Counted before the code is checked, as a password at sign-in; given back unless wrong.
    const blockedFor = await this.attempts.take(pending.user.email, client.ip);
    if (blockedFor > 0) throw new TooManyRequestsError(text('account.tooManyAttempts'), blockedFor);
    const answer = await this.twoFactor.answer(pending, field(request, 'otp_attempt'), client);
    if (!('wrong' in answer || 'exhausted' in answer)) await this.attempts.giveBack(pending.user.email, client.ip);
    if ('wrong' in answer) return codeForm(401, text('twoFactor.signInWrong', { count: answer.wrong }));
    setCookie(request, response, CHALLENGE_COOKIE, '', 0);
    if ('exhausted' in answer) return signInAgain(text('twoFactor.signInExhausted'));
    if ('expired' in answer) return signInAgain(text('twoFactor.signInExpired'));
    await this.session.signIn(request, response, answer.user, { remember: answer.remember, method: 'two_factor' });
    return SIGNED_IN;
  }

  private async signedIn(request: Request, page: (user: AuthenticatedUser) => Promise<PageResult>): Promise<PageResult> {
    const user = await this.session.user(request);
    return user ? page(user) : SIGN_IN;
  }

  private wrongProof(user: AuthenticatedUser): Promise<PageResult> {
    return this.overviewPage(user, { error: text('twoFactor.wrongProof'), status: 401 });
  }

  private async overviewPage(
    user: AuthenticatedUser,
    outcome: { notice?: string; error?: string; status?: number } = {},
  ): Promise<PageResult> {
    return {
      view: 'two-factor',
      title: text('twoFactor.title'),
      status: outcome.status,
      data: { twoFactor: await this.twoFactor.status(user), standalone: true, notice: outcome.notice, error: outcome.error },
    };
  }

  private async verifyPage(user: AuthenticatedUser, error?: string): Promise<PageResult> {
    const key = await this.twoFactor.setupKey(user);
    if (!key) return (await this.twoFactor.isOn(user)) ? OVERVIEW : { redirect: TWO_FACTOR_SETUP_PATH, status: 303 };
    const svg = await QRCode.toString(key.uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    return {
      view: 'two-factor-verify',
      title: text('twoFactor.verifyTitle'),
      status: error ? 422 : 200,
      // In groups of four, as authenticator apps show and take keys.
      data: { qr: labelledSvg(svg, text('twoFactor.qr')), secret: key.secret.replace(/(.{4})(?=.)/g, '$1 '), error },
    };
  }
}

function codesPage(codes: string[], setup: boolean): PageResult {
  return { view: 'two-factor-codes', title: text('twoFactor.codesTitle'), data: { codes, setup } };
}

function codeForm(status = 200, error?: string): PageResult {
  return { view: 'two-factor-sign-in', title: text('twoFactor.signInTitle'), status, data: { error } };
}

function signInAgain(reason: string): PageResult {
  return {
    view: 'message',
    title: text('twoFactor.signInAgainTitle'),
    status: 401,
    data: { message: reason, link: { href: '/users/sign_in', text: text('account.signIn') } },
  };
}
