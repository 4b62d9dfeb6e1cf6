import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { InjectSettings, type Settings } from '@app/config';
import { AuthModule, OidcModule } from '@app/auth';
import { PushesModule } from '@app/pushes';
import { I18nModule } from '@app/i18n';
import { FailedAttemptsModule } from '@app/rate-limit';
import { AccountPages } from './account-pages';
import { AccountPagesController } from './account-pages.controller';
import { AssetsController, RobotsController } from './assets.controller';
import { FirstRunAnnouncer, FirstRunRedirect } from './first-run.middleware';
import { PasswordGuesses } from './password-guesses';
import { ProfilePages } from './profile-pages';
import { ProfilePagesController } from './profile-pages.controller';
import { RecoveryPages } from './recovery-pages';
import { RecoveryPagesController } from './recovery-pages.controller';
import { SignUpPages } from './sign-up-pages';
import { SignUpPagesController } from './sign-up-pages.controller';
import { OwnerPages } from './owner-pages';
import { OwnerPagesController, PushFormRefusalFilter } from './owner-pages.controller';
import { PageExceptionFilter } from './page-exception.filter';
import { PageLanguages } from './page-language';
import { pagePolicies } from './page-policies.middleware';
import { PageRenderer } from './page-renderer';
import { PageResponder } from './page-responder';
import { PageSession } from './page-session';
import { RecipientPages } from './recipient-pages';
import { LegacyLinksController, RecipientPagesController } from './recipient-pages.controller';
import { SingleSignOnPages } from './single-sign-on-pages';
import { SingleSignOnPagesController } from './single-sign-on-pages.controller';
import { RequireTwoFactor } from './require-two-factor.middleware';
import { SessionUserGuard } from './session-user.guard';
import { TwoFactorPages } from './two-factor-pages';
import { TwoFactorPagesController } from './two-factor-pages.controller';

@Module({
  imports: [AuthModule, OidcModule, PushesModule, FailedAttemptsModule, I18nModule],
  // The owner pages first: /p/new before the recipient's /p/:url_token.
  controllers: [
    OwnerPagesController,
    RecipientPagesController,
    LegacyLinksController,
    AccountPagesController,
    SignUpPagesController,
    RecoveryPagesController,
    ProfilePagesController,
    SingleSignOnPagesController,
    TwoFactorPagesController,
    AssetsController,
    RobotsController,
  ],
  providers: [
    PageRenderer,
    PageSession,
    PageLanguages,
    PageResponder,
    PageExceptionFilter,
    RecipientPages,
    AccountPages,
    SignUpPages,
    RecoveryPages,
    ProfilePages,
    PasswordGuesses,
    SingleSignOnPages,
    OwnerPages,
    SessionUserGuard,
    PushFormRefusalFilter,
    FirstRunAnnouncer,
    TwoFactorPages,
  ],
  // For the administration's pages (libs/admin), rendered and guarded as these are.
  exports: [PageResponder, PageSession, PageExceptionFilter, AuthModule, PushesModule],
})
export class PagesModule implements NestModule {
  constructor(@InjectSettings() private readonly settings: Settings) {}

  configure(consumer: MiddlewareConsumer): void {
    // By the controllers' paths rather than forRoutes(RecipientPagesController, ...), which would add a router layer per route.
    consumer
      .apply(pagePolicies(this.settings.brand), PageLanguages)
      .forRoutes(
        { path: '/', method: RequestMethod.ALL },
        { path: 'p/*path', method: RequestMethod.ALL },
        { path: 'users', method: RequestMethod.ALL },
        { path: 'users/*path', method: RequestMethod.ALL },
        { path: 'dashboard/*path', method: RequestMethod.ALL },
        { path: 'first_run', method: RequestMethod.ALL },
        { path: 'user/*path', method: RequestMethod.ALL },
        { path: 'user/two_factor', method: RequestMethod.ALL },
        { path: 'admin', method: RequestMethod.ALL },
        { path: 'admin/*path', method: RequestMethod.ALL },
        // The secret requests' pages (libs/requests renders them with this library's responder).
        { path: 'requests/*path', method: RequestMethod.ALL },
      );
    // The owner-facing pages only: never a recipient's page (/p/:url_token) nor the API.
    consumer
      .apply(FirstRunRedirect)
      .forRoutes(
        { path: '/', method: RequestMethod.ALL },
        { path: 'p/new', method: RequestMethod.ALL },
        { path: 'users', method: RequestMethod.ALL },
        { path: 'users/*path', method: RequestMethod.ALL },
        { path: 'dashboard/*path', method: RequestMethod.ALL },
      );
    // Every page but the two-factor setup itself (user/...) and sign-out.
    if (this.settings.accounts.requireMfa) {
      consumer
        .apply(RequireTwoFactor)
        .exclude({ path: 'users/sign_out', method: RequestMethod.ALL })
        .forRoutes(
          { path: '/', method: RequestMethod.ALL },
          { path: 'p/*path', method: RequestMethod.ALL },
          { path: 'requests/*path', method: RequestMethod.ALL },
          { path: 'users', method: RequestMethod.ALL },
          { path: 'users/*path', method: RequestMethod.ALL },
          { path: 'dashboard/*path', method: RequestMethod.ALL },
        );
    }
  }
}
