import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { AuthModule, OidcModule } from '@app/auth';
import { PushesModule } from '@app/pushes';
import { FailedAttemptsModule } from '@app/rate-limit';
import { AccountPages } from './account-pages';
import { AccountPagesController } from './account-pages.controller';
import { AssetsController } from './assets.controller';
import { PageExceptionFilter } from './page-exception.filter';
import { pagePolicies } from './page-policies.middleware';
import { PageRenderer } from './page-renderer';
import { PageResponder } from './page-responder';
import { PageSession } from './page-session';
import { RecipientPages } from './recipient-pages';
import { LegacyLinksController, RecipientPagesController } from './recipient-pages.controller';
import { SingleSignOnPages } from './single-sign-on-pages';
import { SingleSignOnPagesController } from './single-sign-on-pages.controller';

@Module({
  imports: [AuthModule, OidcModule, PushesModule, FailedAttemptsModule],
  controllers: [RecipientPagesController, LegacyLinksController, AccountPagesController, SingleSignOnPagesController, AssetsController],
  providers: [PageRenderer, PageSession, PageResponder, PageExceptionFilter, RecipientPages, AccountPages, SingleSignOnPages],
})
export class PagesModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    // By the controllers' paths rather than forRoutes(RecipientPagesController, ...), which would add a router layer per route.
    consumer.apply(pagePolicies).forRoutes({ path: 'p/*path', method: RequestMethod.ALL }, { path: 'users/*path', method: RequestMethod.ALL });
  }
}
