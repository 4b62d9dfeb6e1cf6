import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AccountError, type AuthenticatedUser, type TokenSummary, UsersService } from '@app/auth';
import { clientInfoOf, TooManyRequestsError } from '@app/common';
import { SignInAttempts } from '@app/rate-limit';
import type { PageResult } from './page-responder';
import { formField, PageSession } from './page-session';

const SIGN_IN: PageResult = { redirect: '/users/sign_in', status: 303 };
const TOKENS: PageResult = { redirect: '/users/token', status: 303 };

const field = (request: Request, name: string): string => formField(request, name) ?? '';

/**
 * Sign-in with email and password (accounts come from the admin CLI), sign-out, and
 * /users/token, where a signed-in person lists, issues, rotates and revokes their API tokens;
 * a new token is shown once, on the answer to the form that made it.
 */
@Injectable()
export class AccountPages {
  constructor(
    private readonly users: UsersService,
    private readonly session: PageSession,
    private readonly attempts: SignInAttempts,
  ) {}

  async signInForm(request: Request): Promise<PageResult> {
    return (await this.session.user(request)) ? TOKENS : signInPage();
  }

  async signIn(request: Request, response: Response): Promise<PageResult> {
    this.session.checkCsrf(request);
    const email = field(request, 'email').trim().toLowerCase();
    const address = clientInfoOf(request).ip;
    const blockedFor = await this.attempts.blockedFor(email, address);
    if (blockedFor > 0) throw new TooManyRequestsError('Too many failed sign-in attempts.', blockedFor);
    const user = await this.users.checkPassword(email, field(request, 'password'));
    if (!user) {
      await this.attempts.recordFailure(email, address);
      return signInPage(401, 'Incorrect email or password.', email);
    }
    await this.session.signIn(request, response, user);
    return TOKENS;
  }

  async signOut(request: Request, response: Response): Promise<PageResult> {
    this.session.checkCsrf(request);
    await this.session.signOut(request, response);
    return SIGN_IN;
  }

  async tokens(request: Request): Promise<PageResult> {
    const user = await this.session.user(request);
    return user ? this.tokensPage(user) : SIGN_IN;
  }

  /** Issues a named token, or rotates it: the old token of that name stops working at once. */
  async issue(request: Request): Promise<PageResult> {
    return this.change(request, async (user, name) => {
      try {
        return { issued: { name, token: (await this.users.issueToken(user.email, name)).api_token } };
      } catch (error) {
        if (error instanceof AccountError) return { error: error.message, status: 422 };
        throw error;
      }
    });
  }

  async revoke(request: Request): Promise<PageResult> {
    return this.change(request, async (user, name) =>
      (await this.users.revokeToken(user, name)) ? { notice: `The token “${name}” is revoked.` } : { error: `There is no token named “${name}”.`, status: 404 },
    );
  }

  private async change(request: Request, act: (user: AuthenticatedUser, name: string) => Promise<TokenOutcome>): Promise<PageResult> {
    this.session.checkCsrf(request);
    const user = await this.session.user(request);
    if (!user) return SIGN_IN;
    return this.tokensPage(user, await act(user, field(request, 'name').trim()));
  }

  private async tokensPage(user: AuthenticatedUser, outcome: TokenOutcome = {}): Promise<PageResult> {
    return {
      view: 'tokens',
      title: 'API tokens',
      status: outcome.status,
      data: { email: user.email, tokens: (await this.users.tokens(user)).map(withIssuedText), issued: outcome.issued, notice: outcome.notice, error: outcome.error },
    };
  }
}

interface TokenOutcome {
  /** Shown this once. */
  issued?: { name: string; token: string };
  notice?: string;
  error?: string;
  status?: number;
}

/** "2026-11-23 21:52 UTC" beside the exact ISO time. */
const withIssuedText = (token: TokenSummary) => ({ ...token, issued: `${token.created_at.slice(0, 16).replace('T', ' ')} UTC` });

function signInPage(status = 200, error?: string, email = ''): PageResult {
  return { view: 'sign-in', title: 'Sign in', status, data: { error, email } };
}
