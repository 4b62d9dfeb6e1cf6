import type { PushKind } from '@app/config';
import { DAY_MS } from '@app/common';
import type { PushEntity } from '../push.entity';

/** The keys every push response carries. */
export interface PushResponse {
  url_token: string;
  kind: PushKind;
  expire_after_days: number;
  expire_after_views: number;
  expired: boolean;
  expired_on: string | null;
  deleted: boolean;
  deletable_by_viewer: boolean | null;
  retrieval_step: boolean;
  passphrase_protected: boolean;
  days_remaining: number;
  views_remaining: number;
  expires_at: string;
  created_at: string;
  updated_at: string;
  html_url: string;
  json_url: string;
}

/** Create and list responses add the owner's own data. */
export interface OwnedPushResponse extends PushResponse {
  name: string | null;
  note: string | null;
}

export interface PushFileResponse {
  filename: string;
  content_type: string;
  size: number;
  url: string;
}

/** A retrieval adds the secret (null once expired) and its files. */
export interface RetrievedPushResponse extends PushResponse {
  payload: string | null;
  files: PushFileResponse[];
}

export interface PreviewResponse {
  url: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function htmlUrlOf(push: Pick<PushEntity, 'urlToken' | 'retrievalStep'>, baseUrl: string): string {
  return `${baseUrl}/p/${push.urlToken}${push.retrievalStep ? '/r' : ''}`;
}

export function mapPush(push: PushEntity, now: number, baseUrl: string): PushResponse {
  const elapsedDays = Math.floor((now - push.createdAt) / DAY_MS);
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
    days_remaining: Math.max(push.expireAfterDays - elapsedDays, 0),
    views_remaining: Math.max(push.expireAfterViews - push.viewCount, 0),
    expires_at: iso(push.expiresAt),
    created_at: iso(push.createdAt),
    updated_at: iso(push.updatedAt),
    html_url: htmlUrlOf(push, baseUrl),
    json_url: `${baseUrl}/api/v2/pushes/${push.urlToken}`,
  };
}

export function mapOwnedPush(push: PushEntity, note: string | null, now: number, baseUrl: string): OwnedPushResponse {
  return { ...mapPush(push, now, baseUrl), name: push.name, note };
}

export function mapRetrievedPush(push: PushEntity, payload: string | null, now: number, baseUrl: string): RetrievedPushResponse {
  return { ...mapPush(push, now, baseUrl), payload, files: [] };
}
