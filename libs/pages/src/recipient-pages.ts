import { Injectable } from '@nestjs/common';
import QRCode from 'qrcode';
import { ClientInfo, Clock, DAY_MS, HOUR_MS, isWebUrl, MINUTE_MS, PassphraseRequiredError } from '@app/common';
import { describeLifetime, PushesService, type PushResponse, type RetrievedPushResponse } from '@app/pushes';
import { GONE, message } from './page-exception.filter';
import type { PageResult } from './page-responder';
import { text } from './page-text';


/**
 * The recipient's pages behind html_url. A GET never consumes a view unless the sender chose no
 * retrieval step (and set no passphrase): link previews and mail scanners fetch links, people
 * press buttons. Every rule (counting, passphrases, lockouts, deletion) is PushesService's, the
 * same as for the API.
 */
@Injectable()
export class RecipientPages {
  constructor(
    private readonly pushes: PushesService,
    private readonly clock: Clock,
  ) {}

  /** GET /p/:token, and /p/:token/r (`withStep`, always a button). */
  async open(urlToken: string, client: ClientInfo, withStep: boolean): Promise<PageResult> {
    const push = await this.pushes.peek(urlToken, client);
    if (push.expired) return GONE;
    if (push.passphrase_protected || withStep || push.retrieval_step) return revealForm(push, this.clock.now());
    return this.reveal(urlToken, undefined, client);
  }

  /** The view itself: POST from the button or the passphrase form, or the GET of a push without the step. */
  async reveal(urlToken: string, passphrase: string | undefined, client: ClientInfo): Promise<PageResult> {
    let pushed: RetrievedPushResponse;
    try {
      pushed = await this.pushes.retrieve(urlToken, passphrase, client);
    } catch (error) {
      if (error instanceof PassphraseRequiredError) return revealForm(await this.pushes.peek(urlToken, client), this.clock.now(), text('recipient.wrongPassphrase'));
      throw error;
    }
    if (pushed.expired) return GONE;
    // Only http(s) URLs are ever accepted at creation; checked again before sending anyone there.
    if (pushed.kind === 'url') return pushed.payload !== null && isWebUrl(pushed.payload) ? { redirect: pushed.payload, status: 303 } : GONE;
    return { view: 'secret', title: text('recipient.secretTitle'), data: await secretModel(pushed, this.clock.now()) };
  }

  /** "Delete now" of a viewer-deletable push. */
  async delete(urlToken: string, passphrase: string | undefined, client: ClientInfo): Promise<PageResult> {
    try {
      await this.pushes.destroy(urlToken, passphrase, client);
    } catch (error) {
      if (error instanceof PassphraseRequiredError) return message(401, text('recipient.notDeletedTitle'), text('recipient.notDeleted'));
      throw error;
    }
    return { view: 'deleted', title: text('recipient.deletedTitle') };
  }
}

function revealForm(push: PushResponse, now: number, error?: string): PageResult {
  return {
    view: 'reveal',
    title: text(push.passphrase_protected ? 'recipient.passphraseTitle' : 'recipient.sent'),
    status: error ? 401 : 200,
    data: { token: push.url_token, passphrase: push.passphrase_protected, error, ...remaining(push, now) },
  };
}

async function secretModel(pushed: RetrievedPushResponse, now: number): Promise<Record<string, unknown>> {
  const payload = pushed.payload ?? '';
  return {
    token: pushed.url_token,
    text: pushed.kind === 'text' || (pushed.kind === 'file' && payload !== '') ? payload : undefined,
    qr: pushed.kind === 'qr' ? { image: await QRCode.toDataURL(payload, { errorCorrectionLevel: 'M', margin: 2, width: 320 }), text: payload } : undefined,
    files: pushed.files.map((file) => ({ ...file, sizeText: formatSize(file.size) })),
    deletable: pushed.deletable_by_viewer === true && pushed.views_remaining > 0,
    passphrase: pushed.passphrase_protected,
    ...remaining(pushed, now),
  };
}

/** How many views and how long a push has left, in words (also the owner pages'). */
export function remaining(push: PushResponse, now: number): Record<string, unknown> {
  return {
    views: push.views_remaining,
    viewsText: push.views_remaining === 1 ? '1 more view' : `${push.views_remaining} more views`,
    daysText: timeLeft(push, now),
    lastView: push.views_remaining === 0,
  };
}

/** Whole days left, as the API says; under a day, the hours or minutes (a push may live 15 minutes). */
function timeLeft(push: PushResponse, now: number): string {
  const left = Date.parse(push.expires_at) - now;
  if (left >= DAY_MS) return describeLifetime(push.days_remaining * DAY_MS);
  return describeLifetime(left >= HOUR_MS ? Math.floor(left / HOUR_MS) * HOUR_MS : Math.max(Math.ceil(left / MINUTE_MS), 1) * MINUTE_MS);
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const [value, unit] = bytes < 1024 ** 2 ? [bytes / 1024, 'KB'] : bytes < 1024 ** 3 ? [bytes / 1024 ** 2, 'MB'] : [bytes / 1024 ** 3, 'GB'];
  return `${value.toFixed(1)} ${unit}`;
}
