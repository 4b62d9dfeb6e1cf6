import { Injectable } from '@nestjs/common';
import QRCode from 'qrcode';
import { ClientInfo, Clock, DAY_MS, isWebUrl, PassphraseRequiredError } from '@app/common';
import { InjectSettings, type PageSettings, type Settings } from '@app/config';
import { PushesService, type PushResponse, type RetrievedPushResponse } from '@app/pushes';
import { GONE, message } from './page-exception.filter';
import type { PageResult } from './page-responder';
import { fromNowText, sizeText, text } from './page-text';

/**
 * The recipient's pages behind html_url. A GET never consumes a view unless the sender chose no
 * retrieval step (and set no passphrase): link previews and mail scanners fetch links, people
 * press buttons. Every rule (counting, passphrases, lockouts, deletion) is PushesService's, the
 * same as for the API.
 */
@Injectable()
export class RecipientPages {
  private readonly manners: PageSettings;

  constructor(
    private readonly pushes: PushesService,
    private readonly clock: Clock,
    @InjectSettings() settings: Settings,
  ) {
    this.manners = settings.pages;
  }

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
    const blur = pushed.kind === 'text' ? this.manners.blurText : pushed.kind === 'file' && this.manners.blurFiles;
    return { view: 'secret', title: text('recipient.secretTitle'), data: { ...(await secretModel(pushed, this.clock.now())), blur } };
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
    files: pushed.files.map((file) => ({ ...file, sizeText: sizeText(file.size) })),
    deletable: pushed.deletable_by_viewer === true && pushed.views_remaining > 0,
    passphrase: pushed.passphrase_protected,
    ...remaining(pushed, now),
  };
}

/** How many views a push has left, and when it expires in words of the page's language (also the owner pages'). */
export function remaining(push: PushResponse, now: number): { views: number; expiry: string; lastView: boolean } {
  return { views: push.views_remaining, expiry: expiryText(push, now), lastView: push.views_remaining === 0 };
}

/** "in 7 days" by whole days left, as the API counts them; under a day, the hours or minutes (a push may live 15 minutes). */
function expiryText(push: PushResponse, now: number): string {
  const left = Date.parse(push.expires_at) - now;
  return fromNowText(left >= DAY_MS ? push.days_remaining * DAY_MS : left);
}
