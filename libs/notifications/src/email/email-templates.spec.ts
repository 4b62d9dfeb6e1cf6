import { accountEmailOf } from './account-email';
import { type OwnerEventEmail, type PushLinkEmail, renderEmail } from './email-templates';

const LINK: PushLinkEmail = {
  url: 'https://pwpush.example.com/p/abcdefghijklmnopqrstuv',
  sender: 'owner@example.com',
  expiresAt: new Date('2026-11-26T15:30:45Z'),
  viewsRemaining: 5,
  passphraseProtected: false,
};

const EVENT: OwnerEventEmail = {
  event: 'push.viewed',
  push: { urlToken: 'abcdefghijklmnopqrstuv', name: 'Database password', kind: 'text', viewsRemaining: 4, daysRemaining: 6 },
  occurredAt: new Date('2026-11-20T09:05:00Z'),
};

/** That both bodies, plain text and HTML, say each of `phrases`. */
function expectBothBodiesToSay(mail: { text: string; html: string }, phrases: string[]): void {
  for (const body of [mail.text, mail.html]) for (const phrase of phrases) expect(body).toContain(phrase);
}

/** Everything a mail shows, for the checks that hold for subject and both bodies alike. */
const allOf = (mail: { subject: string; text: string; html: string }): string => `${mail.subject}\n${mail.text}\n${mail.html}`;

describe('renderEmail', () => {
  describe('request-link, to someone asked to answer a secret request', () => {
    const REQUEST = { url: 'https://pwpush.example.com/requests/abcdefghijklmnopqrstuv', sender: 'requester@example.com', expiresAt: LINK.expiresAt, passphraseProtected: false };

    it('says a secret is asked for, by whom, with the link and until when it takes an answer, in both bodies', () => {
      const sut = renderEmail('request-link', REQUEST);

      expect(sut.subject).toBe('You are asked for a secret');
      expectBothBodiesToSay(sut, ['requester@example.com asks you to send a secret', REQUEST.url, 'takes one answer until Nov 26, 2026, 03:30 PM UTC', 'only the requester can read it']);
      expect(allOf(sut)).not.toMatch(/passphrase|more views?/);
      expect(renderEmail('request-link', { ...REQUEST, sender: undefined }).text).toContain('Someone asks you to send a secret');
    });

    it('mentions the passphrase only when there is one, and speaks the language asked for', () => {
      expect(renderEmail('request-link', { ...REQUEST, passphraseProtected: true }).text).toContain('asked for a passphrase, which the requester gives you separately');
      const german = renderEmail('request-link', { ...REQUEST, locale: 'de' });
      expect(german.subject).toBe('Sie werden um ein Geheimnis gebeten');
      expect(german.text).toContain('bis 26. Nov. 2026, 15:30 UTC eine Antwort');
      expect(renderEmail('request-link', { ...REQUEST, locale: 'ur' }).html).toContain('<html lang="ur" dir="rtl">');
    });
  });

  describe('push-link, to a recipient', () => {
    it('names the sender and gives the link, its deadline and its views, in both bodies', () => {
      const sut = renderEmail('push-link', LINK);

      expect(sut.subject).toBe('You have received a secret');
      expectBothBodiesToSay(sut, ['owner@example.com has sent you a secret', LINK.url, 'until Nov 26, 2026, 03:30 PM UTC or for 5 more views']);
      expect(sut.html).toContain(`<a href="${LINK.url}"`);
    });

    it('says "Someone" without a sender, and "1 more view" in the singular', () => {
      const sut = renderEmail('push-link', { ...LINK, sender: undefined, viewsRemaining: 1 });

      expect(sut.text).toContain('Someone has sent you a secret');
      expect(sut.text).toContain('for 1 more view,');
    });

    it('mentions the passphrase only when there is one', () => {
      expect(renderEmail('push-link', LINK).text).not.toContain('passphrase');
      const sut = renderEmail('push-link', { ...LINK, passphraseProtected: true });

      expect(sut.text).toContain('asked for a passphrase, which the sender gives you separately');
      expect(sut.html).toContain('asked for a passphrase, which the sender gives you separately');
    });

    it('is a whole HTML document in the language asked for, dates and plurals too; English for a language not shipped', () => {
      expect(renderEmail('push-link', LINK).html).toMatch(/^<!DOCTYPE html>\n<html lang="en" dir="ltr">/);
      expect(renderEmail('push-link', LINK).html).toContain('<title>You have received a secret</title>');
      const german = renderEmail('push-link', { ...LINK, locale: 'de' });
      expect(german.subject).toBe('Sie haben ein Geheimnis erhalten');
      expect(german.html).toContain('<html lang="de" dir="ltr">');
      expect(german.text).toContain('owner@example.com hat Ihnen ein Geheimnis geschickt');
      expect(german.text).toContain('bis 26. Nov. 2026, 15:30 UTC oder für 5 weitere Aufrufe');
      expect(renderEmail('push-link', { ...LINK, locale: 'de', viewsRemaining: 1 }).text).toContain('für 1 weiteren Aufruf');
      const urdu = renderEmail('push-link', { ...LINK, locale: 'ur' });
      expect(urdu.html).toContain('<html lang="ur" dir="rtl">');
      expect(urdu.subject).toBe('آپ کو ایک راز موصول ہوا ہے');
      expect(renderEmail('push-link', { ...LINK, locale: 'ja' }).subject).toBe('シークレットが届きました');
      expect(renderEmail('push-link', { ...LINK, locale: 'xx' }).html).toContain('<html lang="en" dir="ltr">');
    });

    it('escapes the sender in HTML, and keeps the plain text as written', () => {
      const sut = renderEmail('push-link', { ...LINK, sender: '<b>boss</b>@example.com' });

      expect(sut.html).toContain('&lt;b&gt;boss&lt;/b&gt;@example.com has sent you a secret');
      expect(sut.html).not.toContain('<b>boss');
      expect(sut.text).toContain('<b>boss</b>@example.com has sent you a secret');
    });
  });

  describe('owner-event, to a push\'s owner', () => {
    it('says what happened to which push, with its kind, what remains and when', () => {
      const sut = renderEmail('owner-event', EVENT);

      expect(sut.subject).toBe('Your push “Database password” was viewed');
      for (const body of [sut.text, sut.html]) {
        expect(body).toContain('Your push “Database password” was viewed');
        expect(body).toContain('Text');
        expect(body).toContain('Nov 20, 2026, 09:05 AM UTC');
      }
      expect(sut.text).toMatch(/Views remaining: 4\nDays remaining: 6\n/);
      expect(sut.html).toMatch(/Views remaining<\/th><td>4<\/td>/);
      expect(sut.html).toMatch(/Days remaining<\/th><td>6<\/td>/);
    });

    it('speaks the owner\'s language', () => {
      const sut = renderEmail('owner-event', { ...EVENT, locale: 'de' });

      expect(sut.subject).toBe('Ihr Push “Database password” wurde aufgerufen');
      expect(sut.text).toMatch(/Verbleibende Aufrufe: 4\nVerbleibende Tage: 6\nWann: 20\. Nov\. 2026, 09:05 UTC\n/);
    });

    it.each([
      ['push.created', 'Your push “Database password” was created'],
      ['push.viewed', 'Your push “Database password” was viewed'],
      ['push.expired', 'Your push “Database password” has expired'],
      ['push.passphrase_failed', 'A wrong passphrase was entered for your push “Database password”'],
      ['push.file_downloaded', 'A file of your push “Database password” was downloaded'],
    ] as const)('words %s as "%s"', (event, subject) => {
      expect(renderEmail('owner-event', { ...EVENT, event }).subject).toBe(subject);
    });

    it.each([
      ['views', 'Its last view was used.'],
      ['days', 'Its time ran out.'],
      ['owner', 'You expired it.'],
      ['viewer', 'A viewer deleted it.'],
    ] as const)('gives the reason of an expiry by %s', (reason, sentence) => {
      const sut = renderEmail('owner-event', { ...EVENT, event: 'push.expired', reason });

      expect(sut.text).toContain(sentence);
      expect(sut.html).toContain(sentence);
    });

    it('names a push without a name by the first 8 characters of its token, never the whole token', () => {
      const sut = renderEmail('owner-event', { ...EVENT, push: { ...EVENT.push, name: null, kind: 'qr' } });

      expect(sut.subject).toBe('Your push abcdefgh… was viewed');
      expect(allOf(sut)).not.toContain('abcdefghi');
      expect(sut.text).toContain('QR code');
    });

    it('escapes a name with markup in HTML (it is text, never markup)', () => {
      const sut = renderEmail('owner-event', { ...EVENT, push: { ...EVENT.push, name: '<script>alert(1)</script>' } });

      expect(sut.html).not.toContain('<script>');
      expect(sut.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(sut.text).toContain('“<script>alert(1)</script>”');
    });

    it('keeps the subject on one line and short whatever the name holds', () => {
      const sut = renderEmail('owner-event', { ...EVENT, push: { ...EVENT.push, name: `line one\r\nBcc: evil@example.com\t${'x'.repeat(200)}` } });

      expect(sut.subject).not.toMatch(/[\r\n\t]/);
      expect(sut.subject).toMatch(/^Your push “line one Bcc: evil@example.com x+…” was viewed$/);
      expect(sut.subject.length).toBeLessThan(120);
    });
  });

  describe('account, to a person', () => {
    const RESET = { id: 'm', type: 'account.mail', timestamp: '2026-11-26T09:30:00.000Z', kind: 'reset', to: 'ana@example.com', link_base: 'https://pwpush.example.com', expires_at: '2026-11-26T15:30:00.000Z' } as const;

    it('is in the person\'s language, its link opening the page in it too', () => {
      const sut = renderEmail('account', { ...accountEmailOf(RESET, 'the-token', 'de'), locale: 'de' });

      expect(sut.subject).toBe('Wählen Sie ein neues Passwort');
      expect(sut.text).toContain('https://pwpush.example.com/users/password/edit?reset_password_token=the-token&locale=de');
      expect(sut.text).toContain('Der Link funktioniert bis 26. Nov. 2026, 15:30 UTC, einmal.');
      expect(sut.html).toContain('<html lang="de" dir="ltr">');
    });

    it('without a language of the person\'s, is in the default language and its link names none', () => {
      const sut = renderEmail('account', { ...accountEmailOf(RESET, 'the-token'), locale: 'en' });

      expect(sut.subject).toBe('Choose a new password');
      expect(sut.text).toContain('reset_password_token=the-token\n');
      expect(renderEmail('account', { ...accountEmailOf({ ...RESET, kind: 'email_changed', new_email: 'new@example.com' }, undefined), locale: 'ur' }).text).toContain(
        'آپ کے اکاؤنٹ کا پتا ابھی بدل کر new@example.com کر دیا گیا ہے۔',
      );
    });
  });
});
