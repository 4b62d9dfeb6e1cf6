import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import type { Request } from 'express';
import { BadRequestError } from '@app/common';

const QUERY_DESCRIPTION =
  "The push's passphrase. Prefer the X-Passphrase header, which keeps it out of URLs and logs; given twice, or as a list or object (`passphrase[]=x`, `passphrase[a]=x`), is a 400.";

/**
 * The passphrase a request comes with: the X-Passphrase header, else the query's `passphrase`,
 * which must be one string (400 otherwise, even beside the header).
 */
export function passphraseOf(request: Request): string | undefined {
  const query: unknown = request.query.passphrase;
  if (query !== undefined && typeof query !== 'string') throw new BadRequestError('Invalid passphrase parameter');
  return request.get('x-passphrase') ?? query;
}

/**
 * The passphrase a retrieval or a deletion comes with (passphraseOf). Documents the query
 * parameter; the routes document the header.
 */
export const Passphrase = createParamDecorator(
  (_: unknown, context: ExecutionContext): string | undefined => passphraseOf(context.switchToHttp().getRequest<Request>()),
  [
    (target: object, key: string | symbol | undefined) => {
      if (key === undefined) return;
      const method = Object.getOwnPropertyDescriptor(target, key);
      if (method) ApiQuery({ name: 'passphrase', required: false, type: String, description: QUERY_DESCRIPTION })(target, key, method);
    },
  ],
);
