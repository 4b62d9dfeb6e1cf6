import { DAY_MS, HOUR_MS, ValidationFailedError } from '@app/common';
import { type Env, loadSettings } from '@app/config';
import { anonymousRefusal, creationRules } from './creation-rules';
import type { PushInput } from './dto/create-push.dto';

const settingsOf = (env: Env = {}) => loadSettings(env);

/** The 422's field errors of a refused create, or the rules of an accepted one. */
function judged(input: PushInput, env: Env = {}, withFiles = false) {
  try {
    return creationRules(input, withFiles, settingsOf(env));
  } catch (error) {
    if (error instanceof ValidationFailedError) return error.errors;
    throw error;
  }
}

describe('anonymousRefusal (who may create without an owner)', () => {
  it.each([
    ['a text push', { withFiles: false, kind: 'text' }, {}, undefined],
    ['a push of no given kind', { withFiles: false }, {}, undefined],
    ['a file push', { withFiles: true, kind: 'file' }, {}, 'File pushes require authentication.'],
    ['files beside another kind', { withFiles: true, kind: 'text' }, {}, 'File pushes require authentication.'],
    ['a URL push', { withFiles: false, kind: 'url' }, {}, undefined],
    ['a URL push with PWP__URL__REQUIRE_ACCOUNT', { withFiles: false, kind: 'url' }, { PWP__URL__REQUIRE_ACCOUNT: 'true' }, 'URL pushes require authentication.'],
    ['a QR push with PWP__URL__REQUIRE_ACCOUNT', { withFiles: false, kind: 'qr' }, { PWP__URL__REQUIRE_ACCOUNT: 'true' }, undefined],
  ])('%s: %s', (_, push, env, refusal) => {
    expect(anonymousRefusal(push, settingsOf(env))).toBe(refusal);
  });
});

describe('creationRules', () => {
  it.each<[string, PushInput, Env, boolean, ReturnType<typeof judged>]>([
    [
      'defaults: text, 7 days, 5 views, deletable, with the retrieval step',
      { payload: 'x' },
      {},
      false,
      { kind: 'text', lifetime: 7 * DAY_MS, expireAfterDays: 7, expireAfterViews: 5, deletableByViewer: true, retrievalStep: true },
    ],
    [
      "the creator's choices within the kind's ranges",
      { payload: 'x', expire_after_days: 2, expire_after_views: 1, deletable_by_viewer: false, retrieval_step: false },
      {},
      false,
      { kind: 'text', lifetime: 2 * DAY_MS, expireAfterDays: 2, expireAfterViews: 1, deletableByViewer: false, retrievalStep: false },
    ],
    [
      'options the settings turn off are forced off',
      { payload: 'x', deletable_by_viewer: true, retrieval_step: true },
      { PWP__PW__ENABLE_DELETABLE_PUSHES: 'false', PWP__PW__ENABLE_RETRIEVAL_STEP: 'false' },
      false,
      { kind: 'text', lifetime: 7 * DAY_MS, expireAfterDays: 7, expireAfterViews: 5, deletableByViewer: false, retrievalStep: false },
    ],
    [
      'a URL push is never deletable by viewers',
      { kind: 'url', payload: 'https://example.com/' },
      {},
      false,
      { kind: 'url', lifetime: 7 * DAY_MS, expireAfterDays: 7, expireAfterViews: 5, deletableByViewer: null, retrievalStep: true },
    ],
    [
      'files make a file push, whose payload is optional',
      {},
      {},
      true,
      { kind: 'file', lifetime: 7 * DAY_MS, expireAfterDays: 7, expireAfterViews: 5, deletableByViewer: true, retrievalStep: true },
    ],
    [
      'a lifetime under a day is exact, and counts as 1 day',
      { payload: 'x', expire_after_duration: 4 },
      {},
      false,
      { kind: 'text', lifetime: 6 * HOUR_MS, expireAfterDays: 1, expireAfterViews: 5, deletableByViewer: true, retrievalStep: true },
    ],
    ['a disabled kind', { kind: 'qr', payload: 'x' }, { PWP__ENABLE_QR_PUSHES: 'false' }, false, { kind: ['QR code pushes are disabled.'] }],
    ['no payload', { kind: 'text' }, {}, false, { payload: ['Payload is required.'] }],
    ['a URL that is not http(s)', { kind: 'url', payload: 'javascript:alert(1)' }, {}, false, { payload: ['Payload must be an absolute http or https URL.'] }],
    ['a QR payload over 1,024 characters', { kind: 'qr', payload: 'q'.repeat(1025) }, {}, false, { payload: ['Payload is too long (maximum is 1024 characters).'] }],
    ['files with another kind', { kind: 'text', payload: 'x' }, {}, true, { files: ['Files can only be attached to file pushes.'] }],
    ['a file push without files', { kind: 'file' }, {}, false, { files: ['A file push needs at least one file.'] }],
    [
      'every range fault at once',
      { payload: 'x', expire_after_days: 91, expire_after_views: 0 },
      {},
      false,
      { expire_after_days: ['Expire after days must be between 1 and 90.'], expire_after_views: ['Expire after views must be between 1 and 100.'] },
    ],
    [
      'days and a duration that disagree',
      { payload: 'x', expire_after_duration: 12, expire_after_days: 3 },
      {},
      false,
      { expire_after_duration: ['Expire after duration 12 means 7 days, but expire after days is 3: send one of them.'] },
    ],
    ['a lifetime under a day where they are off', { payload: 'x', expire_after_duration: 0 }, { PWP__ALLOW_SUBDAY_EXPIRY: 'false' }, false, { expire_after_duration: [expect.stringMatching(/^Expire after duration must be one of 6 = 1 day/)] }],
  ])('%s', (_, input, env, withFiles, expected) => {
    expect(judged(input, env, withFiles)).toEqual(expected);
  });

  it('reports what `judgeMore` finds with the rest, in one refusal', () => {
    const refuse = () => creationRules({ expire_after_views: 0 }, false, settingsOf(), (faults) => faults.add('notify_emails_to', 'are not available'));

    expect(refuse).toThrow(ValidationFailedError);
    try {
      refuse();
    } catch (error) {
      expect((error as ValidationFailedError).errors).toEqual({
        payload: ['Payload is required.'],
        expire_after_views: ['Expire after views must be between 1 and 100.'],
        notify_emails_to: ['are not available'],
      });
    }
  });
});
