import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import type { AuthenticatedUser } from '@app/auth';
import { ValidationFailedError } from '@app/common';
import { readMultipartBody } from '@app/files';
import { PushesService } from './pushes.service';

/** A push has about ten fields: a form never needs more. */
const MAX_FORM_FIELDS = 100;
/** Room for a 1 MiB-character payload, as for JSON bodies. */
const MAX_FIELD_BYTES = 16 * 1024 * 1024;

type CreateRequest = Request & { user?: AuthenticatedUser };

/**
 * What a create needs before its body is validated. File pushes need authentication, checked
 * before anything else (as the reference does), and multipart bodies, which carry the files, are
 * read here, after authentication, rather than by the app-wide body parsers.
 */
@Injectable()
export class CreatePushInterceptor implements NestInterceptor {
  constructor(private readonly pushes: PushesService) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<CreateRequest>();
    if (request.is('multipart/form-data')) {
      request.body = await readMultipartBody(request, {
        maxFields: MAX_FORM_FIELDS,
        maxFieldBytes: MAX_FIELD_BYTES,
        onFile: async (part) => {
          part.stream.resume();
          this.pushes.checkCreator({ withFiles: true }, request.user);
          throw ValidationFailedError.of('files', 'File pushes are disabled.');
        },
      });
    }
    this.pushes.checkCreator({ withFiles: asksForFiles(request.body) }, request.user);
    return next.handle();
  }
}

/** Whether a create body, as sent, asks for a file push: `kind: "file"` or a `files` key. */
function asksForFiles(body: unknown): boolean {
  const push = (body as { push?: unknown } | undefined)?.push;
  if (typeof push !== 'object' || push === null) return false;
  return (push as { kind?: unknown }).kind === 'file' || 'files' in push;
}
