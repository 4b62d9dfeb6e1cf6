import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PUSH_KINDS, type PushKind } from '@app/config';
import { DAY_MS } from '@app/common';
import type { AttachedFile } from '@app/files';
import type { PushEntity } from '../push.entity';

const TOKEN_EXAMPLE = 'fkwjfvhall1yh6ytNJMHDwbq';
const BASE_EXAMPLE = 'https://pwpush.example.com';
const TIME_EXAMPLE = '2026-01-01T01:00:00.000Z';
const timestamp = (description: string) => ({ type: String, format: 'date-time', description, example: TIME_EXAMPLE });

/** The keys every push response carries (DELETE answers exactly these). */
export class PushResponse {
  @ApiProperty({ description: 'The retrieval token: 144 random bits, URL-safe.', example: TOKEN_EXAMPLE })
  url_token!: string;

  @ApiProperty({ type: String, enum: PUSH_KINDS, description: 'What the payload is.', example: 'text' })
  kind!: PushKind;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'Days until the push expires, counted from creation.', example: 7 })
  expire_after_days!: number;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'Counted views until the push expires.', example: 5 })
  expire_after_views!: number;

  @ApiProperty({ description: 'Whether the push has expired (payload destroyed).', example: false })
  expired!: boolean;

  @ApiProperty({ ...timestamp('When the push expired; null while it is active.'), nullable: true, example: null })
  expired_on!: string | null;

  @ApiProperty({ description: 'True only when the push was expired by a DELETE.', example: false })
  deleted!: boolean;

  @ApiProperty({
    type: Boolean,
    nullable: true,
    description: 'Whether a viewer may delete the push; always null for url pushes.',
    example: true,
  })
  deletable_by_viewer!: boolean | null;

  @ApiProperty({ description: 'Whether html_url shows a click-through page before revealing the secret.', example: true })
  retrieval_step!: boolean;

  @ApiProperty({ description: 'Whether the push needs a passphrase. The passphrase itself is never returned.', example: false })
  passphrase_protected!: boolean;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'expire_after_days minus whole days since creation, at least 0.', example: 7 })
  days_remaining!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'expire_after_views minus counted views, at least 0.', example: 5 })
  views_remaining!: number;

  @ApiProperty(timestamp('When the push expires by time: created_at + expire_after_days × 24 h, or the exact lifetime under a day chosen by expire_after_duration 0 to 5.'))
  expires_at!: string;

  @ApiProperty(timestamp('When the push was created.'))
  created_at!: string;

  @ApiProperty(timestamp('When the push last changed.'))
  updated_at!: string;

  @ApiProperty({
    format: 'uri',
    description: 'The secret URL for people: `{base}/p/{url_token}`, plus `/r` when retrieval_step is true.',
    example: `${BASE_EXAMPLE}/p/${TOKEN_EXAMPLE}/r`,
  })
  html_url!: string;

  @ApiProperty({
    format: 'uri',
    description: 'This push in the API: `{base}/api/v2/pushes/{url_token}`.',
    example: `${BASE_EXAMPLE}/api/v2/pushes/${TOKEN_EXAMPLE}`,
  })
  json_url!: string;
}

/** Create and list responses add the owner's own data; `""` when not given, never null, as the reference answers. */
export class OwnedPushResponse extends PushResponse {
  @ApiProperty({ type: String, maxLength: 255, description: "The owner's label; `\"\"` when none was given.", example: 'Wi-Fi for guests' })
  name!: string;

  @ApiProperty({ type: String, description: "The owner's private note (kept after expiry); `\"\"` when none was given.", example: 'Sent to Alice' })
  note!: string;

  @ApiPropertyOptional({ type: String, description: 'Create only, when given: the recipients the link is mailed to, as kept (repeats dropped).', example: 'alice@example.com' })
  notify_emails_to?: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Create only, with notify_emails_to.', example: 'en' })
  notify_emails_to_locale?: string | null;
}

export class NotifyEmailsResponse {
  @ApiProperty({ type: String, example: 'Recipient(s) are added to the queue to be sent.' })
  message!: string;
}

/** A file attached to a push, as a retrieval lists it. */
export class PushFileResponse {
  @ApiProperty({ example: 'report.pdf' })
  filename!: string;

  @ApiProperty({ example: 'application/pdf' })
  content_type!: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Size in bytes.', example: 1024 })
  size!: number;

  @ApiProperty({
    format: 'uri',
    description:
      "A signed download link, served by this service, that works for PWP__FILES__LINK_LIFETIME_SECONDS (default 5 minutes): also after the view that expired the push, until it lapses. GET it for the file's bytes (Range requests supported).",
    example: `${BASE_EXAMPLE}/api/v2/pushes/${TOKEN_EXAMPLE}/files/AQAAAAAAAQAAaSNBLnwRZ2kPRhNOhEUB9gFqHUAbkQ`,
  })
  url!: string;
}

/** A retrieval adds the secret (null once expired) and its files. */
export class RetrievedPushResponse extends PushResponse {
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The secret; null once the push has expired (and for file pushes without text).',
    example: 'correct horse battery staple',
  })
  payload!: string | null;

  @ApiProperty({ type: [PushFileResponse], description: 'Attached files; [] when there are none or the push has expired.', example: [] })
  files!: PushFileResponse[];
}

export class PreviewResponse {
  @ApiProperty({ format: 'uri', description: "The push's html_url.", example: `${BASE_EXAMPLE}/p/${TOKEN_EXAMPLE}/r` })
  url!: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function htmlUrlOf(push: Pick<PushEntity, 'urlToken' | 'retrievalStep'>, baseUrl: string): string {
  return `${baseUrl}/p/${push.urlToken}${push.retrievalStep ? '/r' : ''}`;
}

/** Page `page` of the owner's active or expired pushes, as a list's Link header names the next one. */
export function listUrlOf(expired: boolean, page: number, baseUrl: string): string {
  return `${baseUrl}/api/v2/pushes/${expired ? 'expired' : 'active'}?page=${page}`;
}

/** What is left of a push at `now`: whole days (none once a lifetime under a day has elapsed) and views. */
export function remainingOf(push: PushEntity, now: number): { days_remaining: number; views_remaining: number } {
  const elapsedDays = now >= push.expiresAt ? push.expireAfterDays : Math.floor((now - push.createdAt) / DAY_MS);
  return {
    days_remaining: Math.max(push.expireAfterDays - elapsedDays, 0),
    views_remaining: Math.max(push.expireAfterViews - push.viewCount, 0),
  };
}

export function mapPush(push: PushEntity, now: number, baseUrl: string): PushResponse {
  return {
    url_token: push.urlToken,
    kind: push.kind,
    expire_after_days: push.expireAfterDays,
    expire_after_views: push.expireAfterViews,
    expired: push.expired,
    expired_on: push.expiredOn === null ? null : iso(push.expiredOn),
    deleted: push.deleted,
    deletable_by_viewer: push.deletableByViewer,
    retrieval_step: push.retrievalStep,
    passphrase_protected: push.passphraseProtected,
    ...remainingOf(push, now),
    expires_at: iso(push.expiresAt),
    created_at: iso(push.createdAt),
    updated_at: iso(push.updatedAt),
    html_url: htmlUrlOf(push, baseUrl),
    json_url: `${baseUrl}/api/v2/pushes/${push.urlToken}`,
  };
}

export function mapOwnedPush(push: PushEntity, note: string | null, now: number, baseUrl: string): OwnedPushResponse {
  // Added to mapPush's answer rather than copied with it: a list maps fifty at a time.
  return Object.assign(mapPush(push, now, baseUrl), { name: push.name ?? '', note: note ?? '' });
}

export function mapRetrievedPush(push: PushEntity, payload: string | null, files: AttachedFile[], now: number, baseUrl: string): RetrievedPushResponse {
  const fileUrl = (file: AttachedFile) => `${baseUrl}/api/v2/pushes/${push.urlToken}/files/${file.link}`;
  return {
    ...mapPush(push, now, baseUrl),
    payload,
    files: files.map((file) => ({ filename: file.filename, content_type: file.contentType, size: file.size, url: fileUrl(file) })),
  };
}
