import { NOTIFY_MESSAGES, parseRecipients } from './notify-emails';

describe('parseRecipients', () => {
  it.each([
    ['a@example.com', ['a@example.com']],
    [' a@example.com , b@example.org ', ['a@example.com', 'b@example.org']],
    ['A@Example.com,a@example.COM,b@example.com', ['a@example.COM', 'b@example.com']],
    ['1@x.io,2@x.io,3@x.io,4@x.io,5@x.io,5@X.IO', ['1@x.io', '2@x.io', '3@x.io', '4@x.io', '5@X.IO']],
  ])('reads %j', (value, recipients) => {
    expect(parseRecipients(value)).toEqual({ recipients });
  });

  it.each([
    ['a@example.com,', NOTIFY_MESSAGES.commas],
    ['a@example.com,,b@example.com', NOTIFY_MESSAGES.commas],
    [',', NOTIFY_MESSAGES.commas],
    ['1@x.io,2@x.io,3@x.io,4@x.io,5@x.io,6@x.io', NOTIFY_MESSAGES.tooMany],
    ['not-an-address', NOTIFY_MESSAGES.invalid],
    ['a@localhost', NOTIFY_MESSAGES.invalid],
    ['a@example.com,b c@example.com', NOTIFY_MESSAGES.invalid],
  ])('refuses %j', (value, fault) => {
    expect(parseRecipients(value)).toEqual({ fault });
  });
});
