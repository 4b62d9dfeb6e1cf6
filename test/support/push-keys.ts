/** The exact key sets of each response variant, from the API contract. */
export const PUSH_KEYS = [
  'url_token', 'kind', 'expire_after_days', 'expire_after_views', 'expired', 'expired_on', 'deleted',
  'deletable_by_viewer', 'retrieval_step', 'passphrase_protected', 'days_remaining', 'views_remaining',
  'expires_at', 'created_at', 'updated_at', 'html_url', 'json_url',
].sort();
export const OWNED_PUSH_KEYS = [...PUSH_KEYS, 'name', 'note'].sort();
export const RETRIEVED_PUSH_KEYS = [...PUSH_KEYS, 'payload', 'files'].sort();

export const keysOf = (value: object): string[] => Object.keys(value).sort();
