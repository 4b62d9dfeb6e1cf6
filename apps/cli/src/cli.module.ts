import { DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { CommonModule } from '@app/common';
import { ConfigModule, Settings } from '@app/config';
import { CryptoModule } from '@app/crypto';
import { DatabaseModule } from '@app/database';
import { PushesModule } from '@app/pushes';
import { RequestsModule } from '@app/requests';

/** The services the administration commands use, on the same settings and database as the server. */
@Module({})
export class CliModule {
  static forRoot(settings: Settings): DynamicModule {
    return {
      module: CliModule,
      imports: [ConfigModule.forRoot(settings), CommonModule, CryptoModule, DatabaseModule.forRoot(), AuthModule, PushesModule, RequestsModule],
    };
  }
}
