import Handlebars from 'handlebars';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PushKind } from '@app/config';
import type { ExpiryReason, PushEventType } from '@app/events';
import { ACCOUNT_MAIL_TEXT, type AccountEmail } from './account-email';

/**
 * The mail sent to each recipient of a push (the reference's "notify by email"): who sent it, the
 * link, and how long it works. Never the payload, the passphrase, the note or file names: the
 * mail travels and is stored in the clear, the link alone is worth little once used up.
 */
export interface PushLinkEmail {
  /**
   * The recipients' locale (notify_emails_to_locale). Only English text is shipped: the locale is
   * taken so translations can be added, and until then every mail says `lang="en"`, the language
   * it is actually written in.
   */
  locale?: string;
  /** The secret's link (the push's html_url). */
  url: string;
  /** The owner's email, shown as who sent it; without one, "Someone". */
  sender?: string;
  expiresAt: Date;
  viewsRemaining: number;
  passphraseProtected: boolean;
}


/** The mail to a push's owner about something that happened to it; the same facts as a webhook, never a secret. */
export interface OwnerEventEmail {
  event: PushEventType;
  /** For push.expired; ignored otherwise. */
  reason?: ExpiryReason;
  push: { urlToken: string; name?: string | null; kind: PushKind; viewsRemaining: number; daysRemaining: number };
  occurredAt: Date;
}

export interface EmailContexts {
  'push-link': PushLinkEmail;
  'owner-event': OwnerEventEmail;
  account: AccountEmail;
}
export type EmailName = keyof EmailContexts;

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

/** The subject (plain text, for the header) and what the templates show. */
type EmailModel = { subject: string; lang: string } & Record<string, unknown>;

/**
 * Renders one of the mails from its templates in ./templates, plain text and HTML. The HTML
 * escapes every value (Handlebars' default), so a push name is text, never markup; the plain
 * text is not escaped, having no markup to protect. Subjects are built here, not in templates:
 * a header wants neither HTML escapes nor line breaks.
 */
export function renderEmail<N extends EmailName>(name: N, context: EmailContexts[N]): RenderedEmail {
  const model = MODELS[name](context);
  const body = template(`${name}.html.hbs`)(model);
  return { subject: model.subject, text: template(`${name}.text.hbs`)(model), html: template('layout.html.hbs')({ ...model, body }) };
}

const MODELS: { [N in EmailName]: (context: EmailContexts[N]) => EmailModel } = {
  'push-link': (mail) => ({
    subject: 'You have received a secret',
    lang: shippedLanguage(mail.locale),
    sender: mail.sender ? oneLine(mail.sender) : 'Someone',
    url: mail.url,
    expiresAt: formatTime(mail.expiresAt),
    views: mail.viewsRemaining === 1 ? '1 more view' : `${mail.viewsRemaining} more views`,
    passphraseProtected: mail.passphraseProtected,
  }),
  account: (mail) => ({
    ...ACCOUNT_MAIL_TEXT[mail.kind],
    lang: 'en',
    url: mail.url ?? null,
    expiresAt: mail.expiresAt ? formatTime(mail.expiresAt) : null,
    newEmail: mail.newEmail ? oneLine(mail.newEmail) : null,
    action: ACCOUNT_MAIL_TEXT[mail.kind].action ?? null,
  }),
  'owner-event': (mail) => {
    const headline = HEADLINES[mail.event](pushLabel(mail.push));
    return {
      subject: headline,
      lang: 'en',
      headline,
      reason: mail.event === 'push.expired' && mail.reason ? EXPIRY_REASONS[mail.reason] : null,
      push: pushLabel(mail.push),
      kind: KIND_NAMES[mail.push.kind],
      viewsRemaining: mail.push.viewsRemaining,
      daysRemaining: mail.push.daysRemaining,
      at: formatTime(mail.occurredAt),
    };
  },
};

const HEADLINES: Record<PushEventType, (push: string) => string> = {
  'push.created': (push) => `Your push ${push} was created`,
  'push.viewed': (push) => `Your push ${push} was viewed`,
  'push.expired': (push) => `Your push ${push} has expired`,
  'push.passphrase_failed': (push) => `A wrong passphrase was entered for your push ${push}`,
  'push.file_downloaded': (push) => `A file of your push ${push} was downloaded`,
};

const EXPIRY_REASONS: Record<ExpiryReason, string> = {
  views: 'Its last view was used.',
  days: 'Its time ran out.',
  owner: 'You expired it.',
  viewer: 'A viewer deleted it.',
};

const KIND_NAMES: Record<PushKind, string> = { text: 'Text', file: 'Files', url: 'URL', qr: 'QR code' };

/**
 * The push's name in quotes, or the first 8 characters of its url_token: enough for the owner to
 * tell pushes apart, far too few to open it (the whole token is the secret's link).
 */
function pushLabel(push: OwnerEventEmail['push']): string {
  const name = push.name ? oneLine(push.name) : '';
  if (name === '') return `${push.urlToken.slice(0, 8)}…`;
  return `“${name.length > 80 ? `${name.slice(0, 79)}…` : name}”`;
}

/** Control characters and line breaks as single spaces: a value may end up in the Subject header. */
function oneLine(value: string): string {
  return value.replace(/[\p{Cc}\s]+/gu, ' ').trim();
}

/** "2026-11-26 15:30 UTC": unambiguous wherever the mail is read, and whenever. */
function formatTime(time: Date): string {
  return `${time.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Only English is shipped; `de-CH` or `fr` still get English, and a lang attribute that says so. */
const SHIPPED_LANGUAGES = new Set(['en']);

function shippedLanguage(locale: string | undefined): string {
  const language = locale?.toLowerCase().split(/[-_]/)[0];
  return language !== undefined && SHIPPED_LANGUAGES.has(language) ? language : 'en';
}

/** Beside this file in src/ and, copied by the build, in dist/. */
const TEMPLATES_DIR = join(__dirname, 'templates');
const handlebars = Handlebars.create();
const compiled = new Map<string, HandlebarsTemplateDelegate>();

/** Compiled on first use, then kept; strict, so a value a template names but the model lacks fails loudly. */
function template(file: string): HandlebarsTemplateDelegate {
  let compiledTemplate = compiled.get(file);
  if (!compiledTemplate) {
    const source = readFileSync(join(TEMPLATES_DIR, file), 'utf8');
    compiledTemplate = handlebars.compile(source, { strict: true, noEscape: file.endsWith('.text.hbs') });
    compiled.set(file, compiledTemplate);
  }
  return compiledTemplate;
}
