import { Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { Clock } from './clock';
import { ApiExceptionFilter } from './exception.filter';
import { RequestBodies } from './request-bodies';
import { RevealsSecretGuard } from './reveals-secret';
import { createValidationPipe } from './validation';

/** Cross-cutting HTTP behaviour registered as app providers, so tests get exactly what production gets. */
@Global()
@Module({
  providers: [
    Clock,
    RequestBodies,
    { provide: APP_FILTER, useClass: ApiExceptionFilter },
    { provide: APP_PIPE, useFactory: createValidationPipe },
    { provide: APP_GUARD, useClass: RevealsSecretGuard },
  ],
  exports: [Clock, RequestBodies],
})
export class CommonModule {}
