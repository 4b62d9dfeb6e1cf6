import type { PushResponse } from '@app/pushes';

/**
 * A push as v1 answers it: v2's, with the reference's v1 `json_url`, `html_url` + `.json`
 * (without `/r`, which the reference keeps and which routes nowhere): `{base}/p/{url_token}.json`,
 * this push's v1 route. v1 clients derive the page's link from it (PassPushPosh drops `.json`).
 */
export function mapV1Push<T extends PushResponse>(push: T): T {
  return { ...push, json_url: `${push.html_url.replace(/\/r$/, '')}.json` };
}
