import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { EventsModule } from '@app/events';
import { ApiAuthGuard } from './api-auth.guard';
import { AccountMails } from './account-mails';
import { AccountTokenEntity } from './account-token.entity';
import { AccountsRepository } from './accounts.repository';
import { FirstRunService } from './first-run.service';
import { Lockout } from './lockout';
import { PeopleAdministration } from './people-administration';
import { ProfileService } from './profile.service';
import { RecoveryService } from './recovery.service';
import { SignUpService } from './sign-up.service';
import { ApiTokenEntity } from './api-token.entity';
import { FirstRunCodeEntity } from './first-run-code.entity';
import { SecondStep } from './second-step';
import { SecurityEventEntity } from './security-event.entity';
import { SecurityLog } from './security-log';
import { SessionEntity } from './session.entity';
import { SessionsService } from './sessions.service';
import { SignInService } from './sign-in.service';
import { BearerStrategy, HeaderPairStrategy } from './strategies';
import { RecoveryCodeEntity } from './two-factor/recovery-code.entity';
import { TwoFactorChallengeEntity } from './two-factor/two-factor-challenge.entity';
import { TwoFactorRepository } from './two-factor/two-factor.repository';
import { TwoFactorService } from './two-factor/two-factor.service';
import { UserEntity } from './user.entity';
import { UsersRepository } from './users.repository';
import { UnseenWork } from './unseen-work';
import { UsersService } from './users.service';
import { WebhookOwners } from './webhook-owners';

@Module({
  imports: [PassportModule, EventsModule, AuditModule, TypeOrmModule.forFeature([UserEntity, ApiTokenEntity, SessionEntity, SecurityEventEntity, AccountTokenEntity, FirstRunCodeEntity, RecoveryCodeEntity, TwoFactorChallengeEntity])],
  providers: [
    UsersRepository,
    AccountsRepository,
    UsersService,
    SessionsService,
    SignInService,
    SecurityLog,
    SecondStep,
    TwoFactorRepository,
    TwoFactorService,
    AccountMails,
    Lockout,
    SignUpService,
    FirstRunService,
    RecoveryService,
    ProfileService,
    PeopleAdministration,
    BearerStrategy,
    HeaderPairStrategy,
    WebhookOwners,
    UnseenWork,
  ],
  exports: [UnseenWork, UsersService, SessionsService, SignInService, SecurityLog, SecondStep, TwoFactorService, SignUpService, FirstRunService, RecoveryService, ProfileService, PeopleAdministration, WebhookOwners],
})
export class AuthModule {}

/** The app's global authentication guard; the CLI imports AuthModule without it. */
@Module({
  imports: [AuthModule],
  providers: [{ provide: APP_GUARD, useClass: ApiAuthGuard }],
})
export class ApiAuthModule {}
