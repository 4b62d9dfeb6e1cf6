import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiAuthGuard } from './api-auth.guard';
import { ApiTokenEntity } from './api-token.entity';
import { SessionEntity } from './session.entity';
import { SessionsService } from './sessions.service';
import { SignInService } from './sign-in.service';
import { BearerStrategy, HeaderPairStrategy } from './strategies';
import { UserEntity } from './user.entity';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  imports: [PassportModule, TypeOrmModule.forFeature([UserEntity, ApiTokenEntity, SessionEntity])],
  providers: [UsersRepository, UsersService, SessionsService, SignInService, BearerStrategy, HeaderPairStrategy],
  exports: [UsersService, SessionsService, SignInService],
})
export class AuthModule {}

/** The app's global authentication guard; the CLI imports AuthModule without it. */
@Module({
  imports: [AuthModule],
  providers: [{ provide: APP_GUARD, useClass: ApiAuthGuard }],
})
export class ApiAuthModule {}
