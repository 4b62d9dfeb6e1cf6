import { Inject, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { NextFunction, Request, Response } from 'express';
import { AuditModule } from '@app/audit';
import { EventsModule } from '@app/events';
import { SETTINGS, Settings } from '@app/config';
import { FilesModule } from '@app/files';
import { noStore } from '@app/pushes';
import { FailedAttemptsModule } from '@app/rate-limit';
import { RequestBodyGuard } from './request-body.guard';
import { RequestClosing } from './request-closing';
import { RequestEvents } from './request-events';
import { RequestEntity } from './request.entity';
import { RequestsController } from './requests.controller';
import { RequestsRepository } from './requests.repository';
import { RequestsService } from './requests.service';
import { RequestsSweepService } from './requests-sweep.service';

const API_ROUTES = { path: 'api/v2/requests{/*path}', method: RequestMethod.ALL };

/**
 * Secret requests. Always part of the app and of the CLI: their entity is named by the files' and
 * audit's foreign keys, so every data source that has those has it too (and the sweep still closes
 * what exists). With PWP__ENABLE_REQUESTS off, every route answers 404 before anything else runs.
 */
@Module({
  imports: [TypeOrmModule.forFeature([RequestEntity]), AuditModule, EventsModule, FailedAttemptsModule, FilesModule],
  controllers: [RequestsController],
  providers: [RequestsRepository, RequestsService, RequestClosing, RequestEvents, RequestBodyGuard, RequestsSweepService],
  exports: [RequestsService, RequestsSweepService],
})
export class RequestsModule implements NestModule {
  constructor(@Inject(SETTINGS) private readonly settings: Settings) {}

  configure(consumer: MiddlewareConsumer): void {
    if (!this.settings.requests.enabled) consumer.apply(requestsOff).forRoutes(API_ROUTES);
    else consumer.apply(noStore).forRoutes(API_ROUTES);
  }
}

/** The contract's 404 for every route while requests are off. */
function requestsOff(_req: Request, res: Response, _next: NextFunction): void {
  res.status(404).json({ error: 'not-found' });
}
