import { applyDecorators, CanActivate, createParamDecorator, ExecutionContext, Injectable, SetMetadata, UseGuards } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { type Access, ACCESS_KEY, type AuthenticatedUser } from '@app/auth';
import { RequestBodies } from '@app/common';
import { MultipartUploads, type UploadBatch } from '@app/files';
import type { RequestedPush } from './creation-rules';
import { PushesService } from './pushes.service';

const WRAPPER = 'pwpush:push-wrapper';

type CreateRequest = Request & { user?: AuthenticatedUser; uploads?: UploadBatch };

/**
 * A route that creates a push from the body's object named `wrapper`: `push` in API v2, the
 * reference's `password`, `file_push` and `url` in API v1. Its files come as `<wrapper>[files][]`
 * parts, as the reference's forms and its official CLI name them.
 */
export const CreatesPush = (wrapper: string) => applyDecorators(SetMetadata(WRAPPER, wrapper), UseGuards(CreatePushGuard));

/**
 * What a create needs before its body is validated. Who may create (file pushes need an owner, as
 * URL pushes may: PushesService.checkCreator) is checked here, for every create route, before
 * anything else (as the reference does): at the first file part of a multipart body, before it is
 * stored, and once the body is read. Two kinds of body are read here, after
 * authentication, rather than by the app-wide body reader: the JSON of a caller that presented a
 * credential, which may carry base64 files and so gets the larger limit now that the credential
 * is known to be good; and multipart bodies, which carry the files: each file is encrypted
 * into storage while it arrives (see PushesService.receiveFile), and a create that fails at any
 * point leaves nothing: a failed read discards at once, the service discards on its own failures,
 * and whatever else refuses the create (validation) has its files discarded as its answer goes.
 *
 * A route guard, because it must run after the global authentication guard and before the body
 * is validated. An interceptor would run there too, but Nest wraps every call of a route with an
 * interceptor in rxjs, which cost each create about 180 µs of CPU, JSON ones included.
 */
@Injectable()
export class CreatePushGuard implements CanActivate {
  constructor(
    private readonly pushes: PushesService,
    private readonly uploads: MultipartUploads,
    private readonly reflector: Reflector,
    private readonly bodies: RequestBodies,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<CreateRequest>();
    const wrapper = this.reflector.get<string>(WRAPPER, context.getHandler());
    const response = context.switchToHttp().getResponse<Response>();
    // Left unread by the app-wide body reader (which read JSON and forms otherwise).
    if (request.body === undefined && request.is('multipart/form-data')) {
      request.uploads = await this.uploads.read(request, response, {
        wrapper,
        admit: () => this.pushes.checkCreator({ withFiles: true }, request.user),
        receive: (uploads, part) => this.pushes.receiveFile(uploads, part),
      });
    } else if (request.body === undefined && request.is('application/json')) await this.bodies.read(request, response, 'json', request.user !== undefined);
    this.pushes.checkCreator(requestedPush(request.body, wrapper), request.user);
    return true;
  }
}

/**
 * The paths of the API's create routes, found by their CreatesPush: the app-wide body reader leaves
 * the JSON of such a create that presents a credential to the route (CreatePushGuard reads it
 * once the credential is checked). Not the pages' (`@Public()`): no credential is checked there.
 */
@Injectable()
export class CreatePushRoutes {
  private paths?: ReadonlySet<string>;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
  ) {}

  has(path: string): boolean {
    // Found at the first request: the controllers are all known by then.
    this.paths ??= this.find();
    return this.paths.has(path);
  }

  private find(): ReadonlySet<string> {
    const paths = new Set<string>();
    for (const { metatype } of this.discovery.getControllers()) {
      if (typeof metatype !== 'function') continue;
      const prototype = metatype.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[name];
        if (typeof handler !== 'function' || this.reflector.get<string | undefined>(WRAPPER, handler) === undefined) continue;
        if (this.reflector.getAllAndOverride<Access | undefined>(ACCESS_KEY, [handler, metatype]) === 'public') continue;
        for (const prefix of pathsOf(metatype)) for (const path of pathsOf(handler)) paths.add(`/${[prefix, path].flatMap((part) => part.split('/')).filter(Boolean).join('/')}`);
      }
    }
    return paths;
  }
}

const pathsOf = (target: object): string[] => [Reflect.getMetadata(PATH_METADATA, target) as string | string[] | undefined ?? '/'].flat();

/** The files a multipart create has received (none for other bodies: the service then makes an empty batch). */
export const Uploads = createParamDecorator((_: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<CreateRequest>().uploads);

/** What a create body, as sent, asks for: its `kind`, and whether a file push (`kind: "file"` or a `files` key). */
function requestedPush(body: unknown, wrapper: string): RequestedPush {
  const push = (body as Record<string, unknown> | undefined)?.[wrapper];
  if (typeof push !== 'object' || push === null) return { withFiles: false };
  const { kind } = push as { kind?: unknown };
  return { withFiles: kind === 'file' || 'files' in push, kind };
}
