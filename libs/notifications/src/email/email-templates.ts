import Handlebars from 'handlebars';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PushKind } from '@app/config';
import type { ExpiryReason, PushEventType } from '@app/events';
import { direction, formatDateTime, type MessageKey, registerTranslationHelpers, shippedCatalogues, SOURCE_LANGUAGE } from '@app/i18n';
import type { AccountEmail } from './account-email';

/** What every mail says of its language: a code of a shipped catalogue (I18n.orDefault resolves a person's or a push's choice). */
export interface InLanguage {
  /** The mail's language; without one, English. */
  locale?: string;
}

/**
 * The mail sent to each recipient of a push (the reference's "notify by email"): who sent it, the
 * link, and how long it works. Never the payload, the passphrase, the note or file names: the
 * mail travels and is stored in the clear, the link alone is worth little once used up.
 */
export interface PushLinkEmail extends InLanguage {
  /** The secret's link (the push's html_url, with `?locale=` when the mail has a language of its own). */
  url: string;
  /** The owner's email, shown as who sent it; without one, "Someone". */
  sender?: string;
  expiresAt: Date;
  viewsRemaining: number;
  passphraseProtected: boolean;
}

/**
 * The mail sent to each person a secret request's owner names to answer it: who asks, the link to
 * the request's page, and until when it takes an answer. Never the request's message (it is
 * encrypted at rest like a secret), the answer, the passphrase or the note.
 */
export type RequestLinkEmail = Omit<PushLinkEmail, 'viewsRemaining'>;

/** The mail to a push's owner about something that happened to it; the same facts as a webhook, never a secret. In the owner's language. */
export interface OwnerEventEmail extends InLanguage {
  event: PushEventType;
  /** For push.expired; ignored otherwise. */
  reason?: ExpiryReason;
  push: { urlToken: string; name?: string | null; kind: PushKind; viewsRemaining: number; daysRemaining: number };
  occurredAt: Date;
}

/**
 * Every mail, by template name. A mail added here (an account mail, say) has its templates in
 * ./templates, its words in the catalogues under `mail.<name>.*`, and a `locale`: the person's
 * preferred language, resolved by I18n.orDefault, so it is written in their language.
 */
export interface EmailContexts {
  'push-link': PushLinkEmail;
  'request-link': RequestLinkEmail;
  'owner-event': OwnerEventEmail;
  account: AccountEmail;
}
export type EmailName = keyof EmailContexts;

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

/** The subject (plain text, for the header) and what the templates show, in the mail's language. */
type EmailModel = { subject: string } & Record<string, unknown>;

/**
 * Renders one of the mails from its templates in ./templates, plain text and HTML, in the mail's
 * language (`{{t "key"}}` reads the catalogues). The HTML escapes every value (Handlebars'
 * default), so a push name is text, never markup; the plain text is not escaped, having no markup
 * to protect. Subjects are built here, not in templates: a header wants neither HTML escapes nor
 * line breaks.
 */
export function renderEmail<N extends EmailName>(name: N, context: EmailContexts[N]): RenderedEmail {
  const locale = context.locale && shippedCatalogues().has(context.locale) ? context.locale : SOURCE_LANGUAGE;
  const t = (key: MessageKey, values?: Record<string, string | number>) => shippedCatalogues().format(locale, key, values);
  const model = { ...MODELS[name](context, t, locale), locale, dir: direction(locale) };
  const body = template(`${name}.html.hbs`)(model);
  return { subject: model.subject, text: template(`${name}.text.hbs`)(model), html: template('layout.html.hbs')({ ...model, body }) };
}

type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

const MODELS: { [N in EmailName]: (context: EmailContexts[N], t: Translate, locale: string) => EmailModel } = {
  'push-link': (mail, t, locale) => ({
    subject: t('mail.link.subject'),
    heading: mail.sender ? t('mail.link.heading', { sender: oneLine(mail.sender) }) : t('mail.link.headingAnonymous'),
    url: mail.url,
    validity: t('mail.link.validity', { expiresAt: formatDateTime(locale, mail.expiresAt), views: mail.viewsRemaining }),
    passphraseProtected: mail.passphraseProtected,
  }),
  'request-link': (mail, t, locale) => ({
    subject: t('mail.request.subject'),
    heading: mail.sender ? t('mail.request.heading', { sender: oneLine(mail.sender) }) : t('mail.request.headingAnonymous'),
    url: mail.url,
    validity: t('mail.request.validity', { closesAt: formatDateTime(locale, mail.expiresAt) }),
    passphraseProtected: mail.passphraseProtected,
  }),
  account: (mail, t, locale) => ({
    subject: t(`mail.account.${mail.kind}.subject`),
    intro: t(`mail.account.${mail.kind}.intro`, { newEmail: mail.newEmail ? oneLine(mail.newEmail) : '' }),
    url: mail.url ?? null,
    action: mail.url ? t(`mail.account.${mail.kind}.action` as MessageKey) : null,
    validity: mail.expiresAt ? t('mail.account.linkValidity', { expiresAt: formatDateTime(locale, mail.expiresAt) }) : null,
    note: t(`mail.account.${mail.kind}.note`),
  }),
  'owner-event': (mail, t, locale) => {
    const headline = t(`mail.owner.${mail.event}` as MessageKey, { push: pushLabel(mail.push) });
    return {
      subject: headline,
      headline,
      reason: mail.event === 'push.expired' && mail.reason ? t(`mail.owner.reason.${mail.reason}`) : null,
      push: pushLabel(mail.push),
      kind: t(`kind.${mail.push.kind}`),
      viewsRemaining: mail.push.viewsRemaining,
      daysRemaining: mail.push.daysRemaining,
      at: formatDateTime(locale, mail.occurredAt),
    };
  },
};

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

/** Beside this file in src/ and, copied by the build, in dist/. */
const TEMPLATES_DIR = join(__dirname, 'templates');
const handlebars = Handlebars.create();
registerTranslationHelpers(handlebars);
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
