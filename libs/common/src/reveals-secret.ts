import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { MethodNotAllowedError } from './errors';

const REVEALS_SECRET = 'pwpush:reveals-secret';

/**
 * Marks a GET that reveals a secret (and so counts a view). Express runs a GET's handler for a
 * HEAD of the same path, so without this, every link checker, proxy and monitor that sends HEAD
 * would burn a view: HEAD on such a route is refused with 405 and `Allow`, before anything is read.
 * `allow` lists the methods the route's path does answer.
 */
export const RevealsSecret = (...allow: string[]) => SetMetadata(REVEALS_SECRET, allow.length > 0 ? allow : ['GET']);

/** Global guard that enforces @RevealsSecret(); first among the guards, so a refused HEAD costs nothing else. */
@Injectable()
export class RevealsSecretGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.switchToHttp().getRequest<Request>().method !== 'HEAD') return true;
    const allow = this.reflector.get<string[] | undefined>(REVEALS_SECRET, context.getHandler());
    if (allow) throw new MethodNotAllowedError(allow);
    return true;
  }
}
