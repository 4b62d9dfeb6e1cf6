import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { AuditEntryResponse } from '@app/audit';
import type { AuthenticatedUser } from '@app/auth';
import { type ClientInfo, createValidationPipe, type FieldErrors, PAGE_SIZE, ValidationFailedError } from '@app/common';
import { InjectSettings, type Settings } from '@app/config';
import type { UploadBatch } from '@app/files';
import {
  dateText, durationText, filesHintText, formErrors, ownedOrGone, PageSession, type PageResult, signInFirst, sizeText, text, type TextKey, wrappedForm,
} from '@app/pages';
import { LIFETIME_BY_DURATION } from '@app/pushes';
import { DEFAULT_CLOSE_AFTER_DURATION } from '../closing-times';
import { CreateRequestBody } from '../dto/create-request.dto';
import type { RequestFileResponse, RequestResponse } from '../dto/request-response.dto';
import type { RequestState } from '../request.entity';
import { RequestsService } from '../requests.service';

/** The requester's pages live under the dashboard, where no responder's `/requests/:url_token` can shadow them. */
export const REQUESTS_DASHBOARD = '/dashboard/requests';
/** The list tabs, in order; the first is the default. */
const TABS = ['open', 'ready', 'closed'] as const satisfies readonly RequestState[];

/** The form's fields that are shown again after a refusal; never the passphrase. */
const KEPT_FIELDS = ['request', 'close_after_duration', 'name', 'note'] as const;
/** Fields with a place of their own on the form, where their errors are shown. */
const FORM_FIELDS = [...KEPT_FIELDS, 'passphrase', 'files', 'retrieval_step', 'include_requestor', 'response_file_attachments'] as const;
const CHECKBOXES = ['retrieval_step', 'include_requestor', 'response_file_attachments'] as const;

/** What a refused create tells its form. */
export interface RequestFormRefusal {
  errors: FieldErrors;
  status: number;
}

/**
 * The requester's pages: the "Request a secret" form, the Requests tab of the dashboard, a
 * request's page (its link, the answer, both sides' files, its audit) and "Close now". Every rule
 * is RequestsService's, called as the API calls it; the form's body is validated by the API's DTO.
 * Someone else's request is the neutral 404, as an unknown one.
 */
@Injectable()
export class RequesterPages {
  private readonly validation = createValidationPipe();

  constructor(
    private readonly requests: RequestsService,
    private readonly session: PageSession,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  /** GET /dashboard/requests/new. */
  form(user: AuthenticatedUser | undefined): PageResult {
    if (!user) return signInFirst(this.settings);
    return this.formPage();
  }

  /** POST /dashboard/requests/new: creates the request and sends the browser to its page, or shows the form again with what to correct. */
  async create(request: Request, client: ClientInfo, user: AuthenticatedUser | undefined, uploads?: UploadBatch): Promise<PageResult> {
    try {
      this.session.checkCsrf(request);
      if (!user) return signInFirst(this.settings);
      const body = (await this.validation.transform(formBody(request.body), { type: 'body', metatype: CreateRequestBody })) as CreateRequestBody;
      const created = await this.requests.create(body.request, client, user, uploads);
      return { redirect: `${REQUESTS_DASHBOARD}/${created.url_token}`, status: 303 };
    } catch (error) {
      // Whatever refused it, the files received are gone before the answer is.
      await uploads?.discard();
      if (!(error instanceof ValidationFailedError)) throw error;
      return this.refusedForm(request, { errors: error.errors, status: 422 });
    }
  }

  /** The form again after a refused create, with the values sent (never the passphrase) and each error beside its field. */
  refusedForm(request: Request, refusal: RequestFormRefusal): PageResult {
    const sent = (formBody(request.body).request ?? {}) as Record<string, unknown>;
    const values = Object.fromEntries(KEPT_FIELDS.map((field) => [field, typeof sent[field] === 'string' ? sent[field] : undefined]));
    const checks = Object.fromEntries(CHECKBOXES.map((field) => [field, sent[field] === 'true']));
    return this.formPage({ ...refusal, values, checks });
  }

  /** GET /dashboard/requests?state=open|ready|closed: the owner's requests in one state, newest first, 50 a page. */
  async list(user: AuthenticatedUser | undefined, state: unknown, page: number, client: ClientInfo): Promise<PageResult> {
    if (!user) return signInFirst(this.settings);
    const current = TABS.find((tab) => tab === state) ?? TABS[0];
    const { items, next } = await this.requests.list(user, current, page, client);
    const href = (n: number) => `${REQUESTS_DASHBOARD}?state=${current}&page=${n}`;
    return {
      view: 'requests/owner-list',
      title: text('request.owner.list.title'),
      data: {
        state: current,
        closed: current === 'closed',
        tabs: TABS.map((tab) => ({ href: `${REQUESTS_DASHBOARD}?state=${tab}`, label: stateText(tab), current: tab === current })),
        requests: items.map(listRow),
        page,
        previous: page > 1 ? href(page - 1) : undefined,
        next: next === null ? undefined : href(page + 1),
      },
    };
  }

  /**
   * GET /dashboard/requests/:token: the request, with its answer when there is one. Showing the
   * answer is a read, so this page is audited `response_view` (the API's read, the same call);
   * then its audit log, which names this read too.
   */
  async show(urlToken: string, user: AuthenticatedUser | undefined, page: number, client: ClientInfo): Promise<PageResult> {
    if (!user) return signInFirst(this.settings);
    const { request, ownFiles, logs } = await ownedOrGone(() => this.requests.ownerView(urlToken, user, page, client));
    const href = (n: number) => `${REQUESTS_DASHBOARD}/${urlToken}?page=${n}`;
    return {
      view: 'requests/owner-request',
      title: labelOf(request),
      data: {
        token: urlToken,
        state: request.state,
        stateText: stateText(request.state),
        closed: request.state === 'closed',
        htmlUrl: request.html_url,
        message: request.request,
        note: request.note === '' ? undefined : request.note,
        created: request.created_at,
        createdText: dateText(request.created_at),
        closesAt: request.close_after_at,
        closesText: dateText(closedOrClosing(request)),
        respondedAt: request.responded_at ?? undefined,
        respondedText: request.responded_at ? dateText(request.responded_at) : undefined,
        answer: request.response ?? undefined,
        answered: request.state === 'ready',
        answerFiles: request.files.map(fileRow),
        ownFiles: ownFiles.map(fileRow),
        entries: logs.map(auditRow),
        previous: page > 1 ? href(page - 1) : undefined,
        next: logs.length === PAGE_SIZE ? href(page + 1) : undefined,
      },
    };
  }

  /** GET /dashboard/requests/:token/close: "Close now", asked once more, without needing JavaScript. */
  async confirmClose(urlToken: string, user: AuthenticatedUser | undefined, client: ClientInfo): Promise<PageResult> {
    if (!user) return signInFirst(this.settings);
    // The preview reads nothing of the answer: asking is not reading it.
    await ownedOrGone(() => this.requests.preview(urlToken, user, client));
    return { view: 'requests/owner-close', title: text('request.owner.close.title'), data: { token: urlToken } };
  }

  /** POST /dashboard/requests/:token/close: the owner closes it (the API's DELETE: the answer and files destroyed), then sees its page. */
  async close(request: Request, urlToken: string, user: AuthenticatedUser | undefined, client: ClientInfo): Promise<PageResult> {
    this.session.checkCsrf(request);
    if (!user) return signInFirst(this.settings);
    await ownedOrGone(() => this.requests.close(urlToken, user, client));
    return { redirect: `${REQUESTS_DASHBOARD}/${urlToken}`, status: 303 };
  }

  private formPage(refusal?: RequestFormRefusal & { values: Record<string, unknown>; checks: Record<string, boolean> }): PageResult {
    const { files } = this.settings;
    const { fieldErrors, otherErrors } = formErrors(refusal?.errors ?? {}, FORM_FIELDS);
    const chosen = Number(refusal?.values.close_after_duration ?? DEFAULT_CLOSE_AFTER_DURATION);
    return {
      view: 'requests/owner-form',
      title: text('request.owner.form.title'),
      status: refusal?.status,
      data: {
        durations: [...LIFETIME_BY_DURATION].map(([value, lifetime]) => ({ value, label: durationText(lifetime), selected: value === chosen })),
        files: this.settings.kinds.file.enabled,
        filesHint: filesHintText(files),
        values: refusal?.values ?? {},
        checks: refusal?.checks ?? {},
        errors: fieldErrors,
        otherErrors,
        refused: refusal !== undefined,
      },
    };
  }
}

/** The form's body as the API reads a create's: the fields under `request`. */
function formBody(body: unknown): { request?: unknown } {
  return wrappedForm(body, 'request', CHECKBOXES, ['close_after_duration']);
}

/** When the request closed, or will: a closed request's last change is its close. */
const closedOrClosing = (request: RequestResponse): string => (request.state === 'closed' ? request.updated_at : request.close_after_at);

const stateText = (state: RequestState): string => text(`request.owner.state.${state}`);
const labelOf = (request: RequestResponse): string => (request.name === '' ? text('kind.request') : request.name);

function listRow(request: RequestResponse) {
  return {
    token: request.url_token,
    label: request.name === '' ? text('dashboard.unnamed') : request.name,
    stateText: stateText(request.state),
    created: request.created_at,
    createdText: dateText(request.created_at),
    closes: closedOrClosing(request),
    closesText: dateText(closedOrClosing(request)),
    responded: request.responded_at ?? undefined,
    respondedText: request.responded_at ? dateText(request.responded_at) : undefined,
  };
}

const fileRow = (file: RequestFileResponse) => ({ url: file.url, filename: file.filename, sizeText: sizeText(file.size) });

function auditRow(entry: AuditEntryResponse) {
  return {
    event: text(`request.owner.event.${entry.kind}` as TextKey),
    ip: entry.ip,
    userAgent: entry.user_agent,
    referrer: entry.referrer,
    when: entry.created_at,
    whenText: dateText(entry.created_at),
  };
}
