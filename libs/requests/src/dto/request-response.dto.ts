import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { AttachedFile } from '@app/files';
import { daysRemaining } from '../closing-times';
import { REQUEST_STATES, type RequestEntity, type RequestState } from '../request.entity';

const TOKEN_EXAMPLE = 'fkwjfvhall1yh6ytNJMHDwbq';
const BASE_EXAMPLE = 'https://pwpush.example.com';
const TIME_EXAMPLE = '2026-01-01T01:00:00.000Z';
const timestamp = (description: string) => ({ type: String, format: 'date-time', description, example: TIME_EXAMPLE });

/** What anyone holding the link learns of a request: no message, name, note or answer. */
export class PublicRequestResponse {
  @ApiProperty({ description: 'The request token: 144 random bits, URL-safe.', example: TOKEN_EXAMPLE })
  url_token!: string;

  @ApiProperty({ type: String, enum: REQUEST_STATES, description: 'open: waiting for its answer; ready: answered; closed: the answer and files destroyed.', example: 'open' })
  state!: RequestState;

  @ApiProperty({ description: 'Whether opening and answering it needs a passphrase.', example: false })
  passphrase_protected!: boolean;

  @ApiProperty({ description: "Whether the responder's page shows a click-through step first.", example: false })
  retrieval_step!: boolean;

  @ApiProperty({ description: 'Whether the answer may come with files.', example: false })
  response_file_attachments!: boolean;

  @ApiProperty(timestamp('When the request closes by itself (created_at + the close_after_duration lifetime).'))
  close_after_at!: string;

  @ApiProperty({ ...timestamp('When it was answered; null until then.'), nullable: true, example: null })
  responded_at!: string | null;

  @ApiProperty({ format: 'uri', description: "The responder's page: `{base}/requests/{url_token}`.", example: `${BASE_EXAMPLE}/requests/${TOKEN_EXAMPLE}` })
  html_url!: string;
}

/** The request object as its requester reads it. */
export class RequestResponse extends PublicRequestResponse {
  @ApiProperty({ format: 'uri', description: '`{base}/api/v2/requests/{url_token}`.', example: `${BASE_EXAMPLE}/api/v2/requests/${TOKEN_EXAMPLE}` })
  json_url!: string;

  @ApiProperty({ description: 'The message to the responder.', example: 'Please send the production database password.' })
  request!: string;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: 17, description: 'The close_after_duration chosen (default 8: 3 days).', example: 8 })
  close_after_duration!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Whole days until it closes, rounded up; 0 once closed.', example: 3 })
  days_remaining!: number;

  @ApiProperty({ description: "Whether the responder's page shows the requester's email address.", example: true })
  include_requestor!: boolean;

  @ApiProperty({ description: 'A plain label; "" when not given.', example: 'Database password from Bob' })
  name!: string;

  @ApiProperty({ description: 'The private note; "" when not given.', example: '' })
  note!: string;

  @ApiProperty(timestamp('When the request was created.'))
  created_at!: string;

  @ApiProperty(timestamp('When it last changed.'))
  updated_at!: string;

  @ApiPropertyOptional({ type: String, description: "Create only, when given: the recipients the request's link is mailed to, as kept (repeats dropped).", example: 'bob@example.com' })
  notify_emails_to?: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Create only, with notify_emails_to.', example: 'de' })
  notify_emails_to_locale?: string | null;
}

export class RequestFileResponse {
  @ApiProperty({ description: 'As the responder named it (cleaned).', example: 'contract.pdf' })
  filename!: string;

  @ApiProperty({ description: 'A `type/subtype`.', example: 'application/pdf' })
  content_type!: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Bytes.', example: 1024 })
  size!: number;

  @ApiProperty({ format: 'uri', description: 'A download link that works for PWP__FILES__LINK_LIFETIME_SECONDS while the request is not closed.', example: `${BASE_EXAMPLE}/api/v2/requests/${TOKEN_EXAMPLE}/files/AQAAAAAAAQAAaV9f2g` })
  url!: string;
}

/** The requester's read: the object with the answer and the responder's files. */
export class AnsweredRequestResponse extends RequestResponse {
  @ApiProperty({ type: String, nullable: true, description: 'The answer; null until answered and once closed.', example: 'hunter2' })
  response!: string | null;

  @ApiProperty({ type: [RequestFileResponse], description: "The responder's files; [] when none or closed.", example: [] })
  files!: RequestFileResponse[];
}

const iso = (ms: number): string => new Date(ms).toISOString();

export const requestHtmlUrl = (urlToken: string, baseUrl: string): string => `${baseUrl}/requests/${urlToken}`;

/** Page `page` of one of the owner's lists, as its Link header names the next one. */
export const requestListUrl = (list: string, page: number, baseUrl: string): string => `${baseUrl}/api/v2/requests/${list}?page=${page}`;

export function mapPublicRequest(request: RequestEntity, baseUrl: string): PublicRequestResponse {
  return {
    url_token: request.urlToken,
    state: request.state,
    passphrase_protected: request.passphraseProtected,
    retrieval_step: request.retrievalStep,
    response_file_attachments: request.responseFileAttachments,
    close_after_at: iso(request.closeAfterAt),
    responded_at: request.respondedAt === null ? null : iso(request.respondedAt),
    html_url: requestHtmlUrl(request.urlToken, baseUrl),
  };
}

export function mapRequest(request: RequestEntity, message: string, note: string | null, now: number, baseUrl: string): RequestResponse {
  return {
    ...mapPublicRequest(request, baseUrl),
    json_url: `${baseUrl}/api/v2/requests/${request.urlToken}`,
    request: message,
    close_after_duration: request.closeAfterDuration,
    days_remaining: daysRemaining(request, now),
    include_requestor: request.includeRequestor,
    name: request.name ?? '',
    note: note ?? '',
    created_at: iso(request.createdAt),
    updated_at: iso(request.updatedAt),
  };
}

export function mapAnsweredRequest(base: RequestResponse, response: string | null, files: AttachedFile[], baseUrl: string): AnsweredRequestResponse {
  return { ...base, response, files: mapRequestFiles(base.url_token, files, baseUrl) };
}

/** Files of a request (either side's) with their short-lived download links. */
export function mapRequestFiles(urlToken: string, files: AttachedFile[], baseUrl: string): RequestFileResponse[] {
  const fileUrl = (file: AttachedFile) => `${baseUrl}/api/v2/requests/${urlToken}/files/${file.link}`;
  return files.map((file) => ({ filename: file.filename, content_type: file.contentType, size: file.size, url: fileUrl(file) }));
}
