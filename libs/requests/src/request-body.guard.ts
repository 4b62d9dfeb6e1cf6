import { applyDecorators, CanActivate, createParamDecorator, ExecutionContext, Injectable, Optional, SetMetadata, UseGuards } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { clientInfoOf } from '@app/common';
import { MultipartUploads, type UploadBatch } from '@app/files';
import { PageSession } from '@app/pages';
import { passphraseOf } from '@app/pushes';
import type { StoredRequest } from './requests.repository';
import { RequestsService } from './requests.service';

const PURPOSE = 'pwpush:request-body';
/** The form field of the responder's page that carries its grant (see ResponderGrants). */
export const GRANT_FIELD = 'grant';
/**
 * `respond-form`: the responder's page, whose CSRF token and grant come as fields before the files;
 * `create-form`: the requester's page, whose CSRF token comes before the files.
 */
type Purpose = 'create' | 'create-form' | 'respond' | 'respond-form';

type BodyRequest = Request & { uploads?: UploadBatch; respondable?: StoredRequest };

/**
 * A route whose multipart body carries files as `request[files][]` parts: a request's create (the
 * requester's own files) or its answer (the responder's, through the API or the responder's
 * page). Each file is encrypted into storage while it arrives; an answer is checked (open,
 * passphrase; on the page also its CSRF token) before a byte of it is stored. JSON and form
 * bodies are read by the app-wide body reader as usual.
 */
export const TakesRequestFiles = (purpose: Purpose) => applyDecorators(SetMetadata(PURPOSE, purpose), UseGuards(RequestBodyGuard));

/** A route guard, so it runs after authentication and before the body is validated (as a push's create). */
@Injectable()
export class RequestBodyGuard implements CanActivate {
  constructor(
    private readonly requests: RequestsService,
    private readonly uploads: MultipartUploads,
    private readonly reflector: Reflector,
    // Only where the pages are (RequestPagesModule): the API's routes never check a form's CSRF token.
    @Optional() private readonly session?: PageSession,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<BodyRequest>();
    if (request.body !== undefined || !request.is('multipart/form-data')) return true;
    const purpose = this.reflector.get<Purpose>(PURPOSE, context.getHandler());
    const response = context.switchToHttp().getResponse<Response>();
    if (purpose === 'respond') request.respondable = await this.requests.checkRespondable(String(request.params.url_token), passphraseOf(request), clientInfoOf(request));
    // The page's fields come before its files: checked at the first file, once.
    let formChecked: Promise<StoredRequest> | undefined;
    request.uploads = await this.uploads.read(request, response, {
      wrapper: 'request',
      admit: async (fieldsSoFar) => {
        if (purpose === 'respond-form') request.respondable = await (formChecked ??= this.checkForm(request, fieldsSoFar()));
        // The requester's form: a forged one stores nothing (its token is checked again with the whole body).
        if (purpose === 'create-form') this.pageSession().checkCsrf(request, fieldsSoFar());
      },
      receive: (uploads, part) => (request.respondable ? this.requests.receiveResponseFile(request.respondable, uploads, part) : this.requests.receiveFile(uploads, part)),
    });
    return true;
  }

  /** The responder's form, by the fields before its first file: its CSRF token, then its grant (or none, without a passphrase). */
  private checkForm(request: BodyRequest, fields: Record<string, unknown>): Promise<StoredRequest> {
    this.pageSession().checkCsrf(request, fields);
    const grant = fields[GRANT_FIELD];
    return this.requests.checkRespondable(String(request.params.url_token), undefined, clientInfoOf(request), typeof grant === 'string' ? grant : undefined);
  }

  private pageSession(): PageSession {
    if (!this.session) throw new Error('A form is a page: its route belongs in RequestPagesModule.');
    return this.session;
  }
}

/** The files a multipart body brought (none for other bodies: the service then makes an empty batch). */
export const RequestUploads = createParamDecorator((_: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<BodyRequest>().uploads);

/** The request a multipart answer was checked against before its files were read. */
export const CheckedRequest = createParamDecorator((_: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<BodyRequest>().respondable);
