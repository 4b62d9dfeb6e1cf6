import { Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { OidcClient, SignInService, SingleSignOnFailedError, SingleSignOnUnavailableError } from '@app/auth';
import { clientInfoOf, publicBaseUrl } from '@app/common';
import { InjectSettings, type Settings } from '@app/config';
import type { PageResult } from './page-responder';
import { PageSession } from './page-session';
import { refusal } from './sign-in-refusals';

export const CALLBACK_PATH = '/users/auth/oidc/callback';
const TOKENS: PageResult = { redirect: '/users/token', status: 303 };

/**
 * Single sign-on's two steps: the button sends the browser to the provider (state, nonce and the
 * PKCE verifier kept in a sealed cookie), and the provider sends it back to the callback, where
 * OidcClient checks the answer and SignInService decides who the person is. Any failure is a
 * refusal page and no session.
 */
@Injectable()
export class SingleSignOnPages {
  private readonly logger = new Logger('SingleSignOn');

  constructor(
    private readonly oidc: OidcClient,
    private readonly signIns: SignInService,
    private readonly session: PageSession,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  async begin(request: Request, response: Response): Promise<PageResult> {
    this.session.checkCsrf(request);
    try {
      const { url, pending } = await this.oidc.begin(this.callbackUrl(request));
      this.session.startSignIn(request, response, pending);
      return { redirect: url, status: 303 };
    } catch (error) {
      if (error instanceof SingleSignOnUnavailableError) return refusal('unavailable');
      throw error;
    }
  }

  async callback(request: Request, response: Response): Promise<PageResult> {
    const pending = this.session.takeSignIn(request, response);
    if (!pending) {
      this.logger.warn('Single sign-on refused: the callback came without a current sign-in cookie (expired, replayed, or started elsewhere).');
      return refusal('failed');
    }
    let signIn;
    try {
      signIn = await this.oidc.finish(new URL(request.originalUrl, this.callbackUrl(request)), pending);
    } catch (error) {
      if (error instanceof SingleSignOnUnavailableError) return refusal('unavailable');
      if (!(error instanceof SingleSignOnFailedError)) throw error;
      this.logger.warn(`Single sign-on refused: ${error.reason}.`);
      return refusal('failed');
    }
    const outcome = await this.signIns.withIdentity(signIn.identity);
    if ('refused' in outcome) {
      this.logger.log(`Single sign-on refused: ${outcome.refused}.`);
      return outcome.refused === 'wrong-password' ? refusal('failed') : refusal(outcome.refused);
    }
    await this.session.signIn(request, response, outcome.user, { idToken: signIn.idToken, method: 'sso' });
    return TOKENS;
  }

  /** `{base}/users/auth/oidc/callback`: the redirect URI registered with the provider. */
  private callbackUrl(request: Request): string {
    return `${publicBaseUrl(this.settings, clientInfoOf(request))}${CALLBACK_PATH}`;
  }
}
