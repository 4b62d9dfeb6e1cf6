import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { type ClientInfo, ConflictError, createValidationPipe, PassphraseRequiredError, PayloadTooLargeError, ValidationFailedError } from '@app/common';
import { InjectSettings, type Settings } from '@app/config';
import type { UploadBatch } from '@app/files';
import { filesHintText, formField, type PageResult, PageSession, sizeText, text } from '@app/pages';
import { TEXT_PAYLOAD_MAX } from '@app/pushes';
import { RespondBody } from '../dto/create-request.dto';
import { GRANT_FIELD } from '../request-body.guard';
import type { StoredRequest } from '../requests.repository';
import { RequestsService } from '../requests.service';
import type { ResponderView } from '../responder-view';

/** A page request, with the request its answer was checked against (by RequestBodyGuard, or here). */
export type AnswerRequest = Request & { respondable?: StoredRequest };
/** Why an answer was refused: what the page says beside each field, or above the form. */
interface Refusal {
  status: number;
  errors: { response?: string; files?: string };
  formError?: string;
  /** The answer's text, given back when it was within its limit (never on success). */
  response?: string;
}
/** What a refusal of the answer can be (ResponderRefusalFilter sends these here). */
export type AnswerRefusal = ConflictError | PassphraseRequiredError | ValidationFailedError | PayloadTooLargeError;

/**
 * The responder's pages behind a request's html_url (`/requests/:url_token`): no account, only the
 * link (and the passphrase, when there is one). A GET changes nothing unless it shows the request
 * (no passphrase, no retrieval step), which is audited `view` as every showing is; the passphrase
 * and the step's button are POSTs. Every rule (open or closed, passphrase and its guess limits,
 * one answer, files and their limits) is RequestsService's, the same as for the API.
 */
@Injectable()
export class ResponderPages {
  private readonly validation = createValidationPipe();

  constructor(
    private readonly requests: RequestsService,
    private readonly session: PageSession,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  /** GET /requests/:token. */
  async open(urlToken: string, client: ClientInfo): Promise<PageResult> {
    const entry = await this.requests.responderEntry(urlToken, client);
    if (entry === 'answered') return answered();
    if (typeof entry === 'string') return accessForm(urlToken, entry === 'passphrase');
    return this.form(entry);
  }

  /** POST /requests/:token/access: the passphrase form, or the retrieval step's button. */
  async access(request: Request, urlToken: string, client: ClientInfo): Promise<PageResult> {
    this.session.checkCsrf(request);
    return this.form(await this.requests.openForResponder(urlToken, formField(request, 'passphrase'), client));
  }

  /** POST /requests/:token: the one answer (a multipart body's files already received, and checked, by RequestBodyGuard). */
  async answer(request: AnswerRequest, urlToken: string, client: ClientInfo, uploads?: UploadBatch): Promise<PageResult> {
    this.session.checkCsrf(request);
    request.respondable ??= await this.requests.checkRespondable(urlToken, undefined, client, formField(request, GRANT_FIELD));
    const body = (await this.validation.transform(request.body, { type: 'body', metatype: RespondBody })) as RespondBody;
    await this.requests.respond(urlToken, body.request, undefined, client, uploads, request.respondable);
    return done(200, text('request.respond.thanksTitle'), text('request.respond.thanks'));
  }

  /**
   * An answer (or an opening) refused: answered already, the passphrase wrong or the page's grant
   * run out, or the answer not within its limits: the form again, saying what to correct.
   */
  async refused(request: AnswerRequest, exception: AnswerRefusal): Promise<PageResult> {
    const urlToken = String(request.params.url_token);
    if (exception instanceof ConflictError) return answered();
    if (exception instanceof PassphraseRequiredError) {
      return accessForm(urlToken, true, text(formField(request, 'passphrase') === undefined ? 'request.respond.passphraseAgain' : 'request.respond.wrongPassphrase'));
    }
    const takesFiles = request.respondable?.responseFileAttachments === true && this.settings.kinds.file.enabled;
    const refusal = this.refusalOf(request, exception, takesFiles);
    // Refused before it was checked (its fields over their limit): nothing of the request is shown.
    if (!request.respondable) return done(refusal.status, text('request.respond.notSentTitle'), refusal.formError ?? refusal.errors.response ?? refusal.errors.files ?? '');
    // The grant it was admitted with (none without a passphrase), never a new one.
    return this.form(await this.requests.responderView(request.respondable, formField(request, GRANT_FIELD)), refusal);
  }

  private refusalOf(request: Request, exception: ValidationFailedError | PayloadTooLargeError, takesFiles: boolean): Refusal {
    const { files } = this.settings;
    const limits = { max: TEXT_PAYLOAD_MAX, fileSize: sizeText(files.maxFileBytes), totalSize: sizeText(files.maxPushBytes), count: files.maxUploads };
    if (exception instanceof PayloadTooLargeError) return { status: 413, errors: {}, formError: text('request.respond.tooLarge', limits) };
    const wrapped = (request.body as { request?: { response?: unknown } } | undefined)?.request;
    const response = typeof wrapped?.response === 'string' ? wrapped.response : '';
    const errors: Refusal['errors'] = {};
    if (exception.errors.files) errors.files = text('request.respond.filesRefused', limits);
    const required = text(takesFiles ? 'request.respond.requiredOrFiles' : 'request.respond.required');
    if (exception.errors.response) errors.response = response.length > TEXT_PAYLOAD_MAX ? text('request.respond.tooLong', limits) : required;
    if (!errors.files && !errors.response) errors.response = required;
    return { status: 422, errors, response: response.length > TEXT_PAYLOAD_MAX ? undefined : response };
  }

  private form(view: ResponderView, refusal?: Refusal): PageResult {
    const { files } = this.settings;
    return {
      view: 'requests/respond',
      title: text('request.respond.title'),
      status: refusal?.status ?? 200,
      data: {
        token: view.url_token,
        message: view.message,
        requesterEmail: view.requester_email ?? undefined,
        theirFiles: view.files.map((file) => ({ ...file, sizeText: sizeText(file.size) })),
        grant: view.grant,
        takesFiles: view.takes_files,
        maxLength: TEXT_PAYLOAD_MAX,
        filesHint: filesHintText(files),
        maxFiles: files.maxUploads,
        maxFileBytes: files.maxFileBytes,
        maxFileSize: sizeText(files.maxFileBytes),
        response: refusal?.response,
        errors: refusal?.errors ?? {},
        formError: refusal?.formError,
      },
    };
  }
}

/** The passphrase form, or (without one) the retrieval step's button: nothing of the request is shown before it. */
function accessForm(urlToken: string, passphrase: boolean, error?: string): PageResult {
  return {
    view: 'requests/respond-access',
    title: text(passphrase ? 'request.respond.passphraseTitle' : 'request.respond.title'),
    status: error ? 401 : 200,
    data: { token: urlToken, passphrase, error },
  };
}

/** One answer per request (the API's 409): said the same whether this visitor sent it or someone else did. */
const answered = (): PageResult => done(409, text('request.respond.answeredTitle'), text('request.respond.answered'));

function done(status: number, title: string, message: string): PageResult {
  return { view: 'requests/respond-done', title, status, data: { message } };
}
