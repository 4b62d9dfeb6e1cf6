import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy as BearerBase } from 'passport-http-bearer';
import { Strategy as PassportBase } from 'passport-strategy';
import { AuthenticatedUser } from './authenticated-user';
import { UsersService } from './users.service';

/** `Authorization: Bearer <token>` (scheme case-insensitive). */
@Injectable()
export class BearerStrategy extends PassportStrategy(BearerBase, 'bearer') {
  constructor(private readonly users: UsersService) {
    super();
  }

  async validate(token: string): Promise<AuthenticatedUser | false> {
    return (await this.users.authenticate(token)) ?? false;
  }
}

type Done = (error: unknown, user?: AuthenticatedUser | false) => void;
type Verify = (email: string, token: string, done: Done) => void;

/** The reference's legacy header pair, `X-User-Email` + `X-User-Token`, as a passport strategy. */
class HeaderPairBase extends PassportBase {
  constructor(private readonly verify: Verify) {
    super();
  }

  override authenticate(req: Request): void {
    const email = req.get('x-user-email');
    const token = req.get('x-user-token');
    if (!email || !token) return this.fail(401);
    this.verify(email, token, (error, user) => {
      if (error) return this.error(error instanceof Error ? error : new Error('Token verification failed.'));
      return user ? this.success(user) : this.fail(401);
    });
  }
}

@Injectable()
export class HeaderPairStrategy extends PassportStrategy(HeaderPairBase, 'header-pair') {
  constructor(private readonly users: UsersService) {
    super();
  }

  async validate(email: string, token: string): Promise<AuthenticatedUser | false> {
    return (await this.users.authenticate(token, email)) ?? false;
  }
}
