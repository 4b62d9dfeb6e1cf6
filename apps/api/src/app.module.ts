import { DynamicModule, Module } from '@nestjs/common';
import { AdminModule } from '@app/admin';
import { ApiV1Module } from '@app/api-v1';
import { AuditModule } from '@app/audit';
import { ApiAuthModule } from '@app/auth';
import { CommonModule } from '@app/common';
import { ConfigModule, Settings } from '@app/config';
import { CryptoModule } from '@app/crypto';
import { DatabaseModule } from '@app/database';
import { HealthModule } from '@app/health';
import { MetricsEndpointModule } from '@app/metrics';
import { NotificationsModule, NotificationWorkerModule } from '@app/notifications';
import { PagesModule } from '@app/pages';
import { ExpirySweepModule, PushesModule } from '@app/pushes';
import { RateLimitModule } from '@app/rate-limit';
import { RedisModule } from '@app/redis';
import { RequestPagesModule, RequestsModule, RequestsSweepModule } from '@app/requests';
import { VersionModule } from '@app/version';
import { LoggingModule } from './logging.module';

@Module({})
export class AppModule {
  static forRoot(settings: Settings): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(settings),
        LoggingModule.forRoot(settings),
        CommonModule,
        CryptoModule,
        DatabaseModule.forRoot(),
        RedisModule,
        // Before authentication, so a client over its limit costs no token lookup.
        RateLimitModule.forRoot(settings),
        ApiAuthModule,
        AuditModule,
        PushesModule,
        ExpirySweepModule,
        RequestsModule,
        RequestsSweepModule,
        NotificationsModule,
        NotificationWorkerModule,
        // Before the pages: its routes `/p/:url_token.json` would otherwise be taken by the page `/p/:url_token`.
        // Off, v1 has no handler at all (its policy answers 404 on its paths: see apiV1Policies).
        ...(settings.apiV1Enabled ? [ApiV1Module] : []),
        PagesModule,
        RequestPagesModule,
        AdminModule,
        VersionModule,
        HealthModule,
        MetricsEndpointModule.forRoot(settings),
      ],
    };
  }
}
