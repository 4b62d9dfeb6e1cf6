import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AccountError, type AuthenticatedUser, OidcClient, RecoveryService, SignInService, SignUpService, TOKEN_LIFETIMES_DAYS, type TokenSummary, UsersService } from '@app/auth';
import { asciiLowerCase, clientInfoOf, publicBaseUrl, TooManyRequestsError } from '@app/common';
import { InjectSettings, type Settings } from '@app/config';
import { SignInAttempts } from '@app/rate-limit';
import { NOT_FOUND } from './account-forms';
import type { PageResult } from './page-responder';
import { formField, PageSession } from './page-session';
import { dateText, text } from './page-text';
import { refusal } from './sign-in-refusals';
import { TwoFactorPages } from './two-factor-pages';

const SIGN_IN_PATH = '/users/sign_in';
const SIGN_IN: PageResult = { redirect: SIGN_IN_PATH, status: 303 };
const TOKENS: PageResult = { redirect: '/users/token', status: 303 };
const HOME: PageResult = { redirect: '/', status: 303 };

const field = (request: Request, name: string): string => formField(request, name) ?? '';

/** The choices of the token form's expiry, in days; "never" is the default. */
const LIFETIME_CHOICES = TOKEN_LIFETIMES_DAYS.map((days) => ({ days }));

/**
 * Sign-in (email and password, and the single sign-on button; who the person is is
 * SignInService's decision), sign-out, and /users/token, where a signed-in person lists, issues,
 * rotates and revokes their API tokens; a new token is shown once, on the answer to the form that
 * made it.
 */
@Injectable()
export class AccountPages {
  constructor(
    private readonly users: UsersService,
    private readonly signIns: SignInService,
    private readonly signUps: SignUpService,
    private readonly recovery: RecoveryService,
    private readonly oidc: OidcClient,
    private readonly session: PageSession,
    private readonly attempts: SignInAttempts,
    private readonly twoFactor: TwoFactorPages,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  async signInForm(request: Request): Promise<PageResult> {
    if (this.settings.accounts.disableLogins) return NOT_FOUND;
    return (await this.session.user(request)) ? TOKENS : this.signInPage();
  }

  async signIn(request: Request, response: Response): Promise<PageResult> {
    if (this.settings.accounts.disableLogins) return NOT_FOUND;
    this.session.checkCsrf(request);
    if (!this.signIns.passwordSignIn) return refusal('password-sign-in-off');
    if (formField(request, 'otp_attempt') !== undefined) return this.twoFactor.answerCode(request, response);
    const email = asciiLowerCase(field(request, 'email').trim());
    const client = clientInfoOf(request);
    // Counted before the password is checked, so that passwords sent together cannot outrun the limits; given back unless wrong.
    const blockedFor = await this.attempts.take(email, client.ip);
    if (blockedFor > 0) throw new TooManyRequestsError(text('account.tooManyAttempts'), blockedFor);
    const outcome = await this.signIns.withPassword(email, field(request, 'password'), client);
    if ('refused' in outcome) {
      if (outcome.refused === 'wrong-password') return this.signInPage(401, text('account.wrongPassword'), email);
      await this.attempts.giveBack(email, client.ip);
      return refusal(outcome.refused);
    }
    await this.attempts.giveBack(email, client.ip);
    if ('secondStep' in outcome) return this.twoFactor.askForCode(request, response, outcome.secondStep.user, field(request, 'remember_me') === '1');
    await this.session.signIn(request, response, outcome.user, { remember: field(request, 'remember_me') === '1', method: 'password' });
    return TOKENS;
  }

  /** Ends the session here, then, after a single sign-on, at the provider too when it offers RP-initiated logout. */
  async signOut(request: Request, response: Response): Promise<PageResult> {
    this.session.checkCsrf(request);
    const user = await this.session.user(request);
    const { idToken } = await this.session.signOut(request, response);
    if (user) await this.signIns.signedOut(user, clientInfoOf(request));
    if (idToken === undefined) return this.signInFirst;
    const signInUrl = `${publicBaseUrl(this.settings, clientInfoOf(request))}${SIGN_IN_PATH}`;
    const logout = await this.oidc.logoutUrl(idToken, signInUrl);
    return logout ? { redirect: logout, status: 303 } : this.signInFirst;
  }

  async tokens(request: Request): Promise<PageResult> {
    const user = await this.session.user(request);
    return user ? this.tokensPage(user) : this.signInFirst;
  }

  /** Issues a named token, expiring after the chosen number of days or never; one of that name is replaced. */
  async issue(request: Request): Promise<PageResult> {
    const expiresIn = field(request, 'expires_in');
    const lifetimeDays = expiresIn === '' || expiresIn === 'never' ? undefined : Number(expiresIn);
    return this.change(request, (user, name) => shownOnce(name, this.users.issueToken(user.email, name, lifetimeDays)));
  }

  /** Rotates a token: the old one stops working at once; the new one lives as long as the old one was given. */
  async rotate(request: Request): Promise<PageResult> {
    return this.change(request, (user, name) => shownOnce(name, this.users.rotateToken(user, name)));
  }

  async revoke(request: Request): Promise<PageResult> {
    return this.change(request, async (user, name) =>
      (await this.users.revokeToken(user, name)) ? { notice: text('account.revoked', { name }) } : { error: text('account.noSuchToken', { name }), status: 404 },
    );
  }

  private async change(request: Request, act: (user: AuthenticatedUser, name: string) => Promise<TokenOutcome>): Promise<PageResult> {
    this.session.checkCsrf(request);
    const user = await this.session.user(request);
    if (!user) return this.signInFirst;
    return this.tokensPage(user, await act(user, field(request, 'name').trim()));
  }

  private async tokensPage(user: AuthenticatedUser, outcome: TokenOutcome = {}): Promise<PageResult> {
    return {
      view: 'tokens',
      title: text('account.tokensTitle'),
      status: outcome.status,
      data: {
        email: user.email,
        tokens: (await this.users.tokens(user)).map(withDatesText),
        lifetimes: LIFETIME_CHOICES,
        issued: outcome.issued,
        notice: outcome.notice,
        error: outcome.error,
      },
    };
  }

  /** Where a page that needs a person sends a visitor: the sign-in page, or `/` while sign-in is off. */
  private get signInFirst(): PageResult {
    return this.settings.accounts.disableLogins ? HOME : SIGN_IN;
  }

  /**
   * The sign-in page: the password form unless it is off (with "remember me", and the ways to an
   * account and back into one), and the single sign-on button, or why it cannot be used now.
   */
  private async signInPage(status = 200, error?: string, email = ''): Promise<PageResult> {
    const sso = this.oidc.enabled ? { label: this.oidc.buttonLabel, available: await this.oidc.available() } : undefined;
    const links = { signUp: this.signUps.open, recovery: this.recovery.available };
    return {
      view: 'sign-in',
      title: text('account.signInTitle'),
      status,
      data: { error, email, sso, password: this.signIns.passwordSignIn, links: { ...links, any: links.signUp || links.recovery } },
    };
  }
}

/** A token just issued, for the page that shows it once; an account rule's refusal as the page's error. */
async function shownOnce(name: string, issuing: Promise<{ api_token: string }>): Promise<TokenOutcome> {
  try {
    return { issued: { name, token: (await issuing).api_token } };
  } catch (error) {
    if (error instanceof AccountError) return { error: error.message, status: 422 };
    throw error;
  }
}

interface TokenOutcome {
  /** Shown this once. */
  issued?: { name: string; token: string };
  notice?: string;
  error?: string;
  status?: number;
}

const withDatesText = (token: TokenSummary) => ({
  ...token,
  issued: dateText(token.created_at),
  expires: token.expires_at === null ? undefined : dateText(token.expires_at),
});
