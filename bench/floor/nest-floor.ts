import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { Body, Controller, Get, Header, HttpCode, Inject, Module, Param, Post, Req, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import express, { type Request, type Response } from 'express';

/** What the Nest floor needs of the floor's handlers (bench/floor/server.ts). */
export interface FloorHandlers<C> {
  create(body: unknown, client: C): Promise<unknown>;
  retrieve(urlToken: string, client: C): Promise<unknown>;
  preview(urlToken: string, client: C): Promise<unknown>;
}

const HANDLERS = Symbol('floor handlers');

/**
 * The Nest floor: the Express floor's handlers in one bare Nest controller on the same Express
 * adapter as the service, with nothing else (no guards, pipes, interceptors, filters, middleware
 * or logger). Between the Express floor and this one is the cost of Nest itself; between this one
 * and the service, the service's own policies.
 */
export async function nestFloor<C>(handlers: FloorHandlers<C>, clientOf: (request: Request) => C, version: unknown, bodyLimit: number): Promise<RequestListener> {
  @Controller('api/v2')
  class FloorController {
    constructor(@Inject(HANDLERS) private readonly floor: FloorHandlers<C>) {}

    @Post('pushes')
    @HttpCode(201)
    create(@Body() body: unknown, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<unknown> {
      response.setHeader('X-Request-Id', randomUUID());
      return this.floor.create(body, clientOf(request));
    }

    @Get('version')
    version(@Res({ passthrough: true }) response: Response): unknown {
      response.setHeader('X-Request-Id', randomUUID());
      return version;
    }

    @Get('pushes/:token/preview')
    preview(@Param('token') token: string, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<unknown> {
      response.setHeader('X-Request-Id', randomUUID());
      return this.floor.preview(token, clientOf(request));
    }

    @Get('pushes/:token')
    @Header('Cache-Control', 'no-store')
    retrieve(@Param('token') token: string, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<unknown> {
      response.setHeader('X-Request-Id', randomUUID());
      return this.floor.retrieve(token, clientOf(request));
    }
  }

  @Module({ controllers: [FloorController], providers: [{ provide: HANDLERS, useValue: handlers }] })
  class FloorModule {}

  const server = express();
  const app = await NestFactory.create(FloorModule, new ExpressAdapter(server), { bodyParser: false, logger: false });
  server.disable('x-powered-by');
  server.set('etag', false);
  app.use(express.json({ limit: bodyLimit }));
  await app.init();
  return server;
}
