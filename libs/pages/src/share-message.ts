import { DAY_MS } from '@app/common';
import type { I18n } from '@app/i18n';
import type { PushResponse } from '@app/pushes';

/**
 * The preview's message to send with the link (the reference's share message): what the link is,
 * the link, how long and how often it works, whether a passphrase is needed, and that the secret
 * is then deleted. In the link's language, which may not be the page's: it is for the recipient.
 */
export function shareMessage(i18n: I18n, locale: string, url: string, push: PushResponse, now: number): string {
  const left = Date.parse(push.expires_at) - now;
  const days = i18n.duration(locale, left >= DAY_MS ? push.days_remaining * DAY_MS : left);
  const notes = [
    i18n.t(locale, 'share.validity', { days, views: push.views_remaining }),
    ...(push.passphrase_protected ? [i18n.t(locale, 'share.passphrase')] : []),
    i18n.t(locale, 'share.deleted'),
  ];
  return [
    i18n.t(locale, 'share.opening'),
    '',
    i18n.t(locale, 'share.link', { url }),
    '',
    i18n.t(locale, 'share.notes'),
    ...notes.map((note) => `• ${note}`),
  ].join('\n');
}
