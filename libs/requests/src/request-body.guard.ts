import { applyDecorators, CanActivate, createParamDecorator, ExecutionContext, Injectable, SetMetadata, UseGuards } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { clientInfoOf } from '@app/common';
import { MultipartUploads, type UploadBatch } from '@app/files';
import { passphraseOf } from '@app/pushes';
import type { StoredRequest } from './requests.repository';
import { RequestsService } from './requests.service';

const PURPOSE = 'pwpush:request-body';
type Purpose = 'create' | 'respond';

type BodyRequest = Request & { uploads?: UploadBatch; respondable?: StoredRequest };

/**
 * A route whose multipart body carries files as `request[files][]` parts: a request's create (the
 * requester's own files) or its answer (the responder's). Each file is encrypted into storage
 * while it arrives; an answer is checked (open, passphrase) before a byte of it is stored. JSON
 * and form bodies are read by the app-wide body reader as usual.
 */
export const TakesRequestFiles = (purpose: Purpose) => applyDecorators(SetMetadata(PURPOSE, purpose), UseGuards(RequestBodyGuard));

/** A route guard, so it runs after authentication and before the body is validated (as a push's create). */
@Injectable()
export class RequestBodyGuard implements CanActivate {
  constructor(
    private readonly requests: RequestsService,
    private readonly uploads: MultipartUploads,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<BodyRequest>();
    if (request.body !== undefined || !request.is('multipart/form-data')) return true;
    const purpose = this.reflector.get<Purpose>(PURPOSE, context.getHandler());
    const response = context.switchToHttp().getResponse<Response>();
    let respondable: StoredRequest | undefined;
    if (purpose === 'respond') {
      respondable = await this.requests.checkRespondable(String(request.params.url_token), passphraseOf(request), clientInfoOf(request));
      request.respondable = respondable;
    }
    request.uploads = await this.uploads.read(request, response, {
      wrapper: 'request',
      receive: (uploads, part) => (respondable ? this.requests.receiveResponseFile(respondable, uploads, part) : this.requests.receiveFile(uploads, part)),
    });
    return true;
  }
}

/** The files a multipart body brought (none for other bodies: the service then makes an empty batch). */
export const RequestUploads = createParamDecorator((_: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<BodyRequest>().uploads);

/** The request a multipart answer was checked against before its files were read. */
export const CheckedRequest = createParamDecorator((_: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<BodyRequest>().respondable);
