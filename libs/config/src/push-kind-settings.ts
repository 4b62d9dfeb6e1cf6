import { Reader } from './env-reader';
import { BoundedSetting, flag, group, integer, Range } from './setting';

/** The four kinds of push, in the order the reference lists them. */
export const PUSH_KINDS = ['text', 'file', 'url', 'qr'] as const;
export type PushKind = (typeof PUSH_KINDS)[number];

export interface Toggle {
  /** Whether a creator may choose this option at all; when false it is forced off. */
  enabled: boolean;
  /** The value used when the creator does not say. */
  default: boolean;
}

export interface KindSettings {
  enabled: boolean;
  expireAfterDays: Range;
  expireAfterViews: Range;
  retrievalStep: Toggle;
  deletableByViewer: Toggle;
}

/** Each kind's variable for each of the settings every kind has. */
interface KindNames {
  expireAfterDaysDefault: string;
  expireAfterDaysMin: string;
  expireAfterDaysMax: string;
  expireAfterViewsDefault: string;
  expireAfterViewsMin: string;
  expireAfterViewsMax: string;
  enableRetrievalStep: string;
  retrievalStepDefault: string;
  enableDeletablePushes: string;
  deletablePushesDefault: string;
}

const DAYS = { default: 7, min: 1, max: 90 };
const VIEWS = { default: 5, min: 1, max: 100 };

/** The same facts for every kind, under its names; `push` names the kind in the meanings ("a text push"). */
function kindSettings(push: string, names: KindNames) {
  return {
    expireAfterDaysDefault: integer({
      name: names.expireAfterDaysDefault,
      ...DAYS,
      meaning: `Days ${push} lives when its creator does not say; within MIN and MAX.`,
    }),
    expireAfterDaysMin: integer({
      name: names.expireAfterDaysMin,
      ...DAYS,
      default: DAYS.min,
      meaning: 'The fewest days a creator may choose.',
    }),
    expireAfterDaysMax: integer({
      name: names.expireAfterDaysMax,
      ...DAYS,
      default: DAYS.max,
      meaning: 'The most days a creator may choose.',
    }),
    expireAfterViewsDefault: integer({
      name: names.expireAfterViewsDefault,
      ...VIEWS,
      meaning: `Views ${push} allows when its creator does not say; within MIN and MAX.`,
    }),
    expireAfterViewsMin: integer({
      name: names.expireAfterViewsMin,
      ...VIEWS,
      default: VIEWS.min,
      meaning: 'The fewest views a creator may choose.',
    }),
    expireAfterViewsMax: integer({
      name: names.expireAfterViewsMax,
      ...VIEWS,
      default: VIEWS.max,
      meaning: 'The most views a creator may choose.',
    }),
    enableRetrievalStep: flag({
      name: names.enableRetrievalStep,
      default: true,
      meaning: 'Whether creators may ask for a retrieval step (a click-through page before the secret).',
    }),
    retrievalStepDefault: flag({
      name: names.retrievalStepDefault,
      default: true,
      meaning: `Whether ${push} has a retrieval step when its creator does not say.`,
    }),
    enableDeletablePushes: flag({
      name: names.enableDeletablePushes,
      default: true,
      meaning: 'Whether creators may let viewers delete a push.',
    }),
    deletablePushesDefault: flag({
      name: names.deletablePushesDefault,
      default: true,
      meaning: `Whether viewers may delete ${push} when its creator does not say.`,
    }),
  };
}

export const TEXT_PUSHES = group({
  title: 'Text pushes',
  intro:
    'Each kind of push has the same settings under its own names: PW (text), URL, FILES and QR. ' +
    'A lifetime in days (hard limits 1 to 90) and in views (1 to 100): its default and the range a creator may choose from; and two options a creator may be allowed to choose, with their defaults.',
  settings: kindSettings('a text push', {
    expireAfterDaysDefault: 'PWP__PW__EXPIRE_AFTER_DAYS_DEFAULT',
    expireAfterDaysMin: 'PWP__PW__EXPIRE_AFTER_DAYS_MIN',
    expireAfterDaysMax: 'PWP__PW__EXPIRE_AFTER_DAYS_MAX',
    expireAfterViewsDefault: 'PWP__PW__EXPIRE_AFTER_VIEWS_DEFAULT',
    expireAfterViewsMin: 'PWP__PW__EXPIRE_AFTER_VIEWS_MIN',
    expireAfterViewsMax: 'PWP__PW__EXPIRE_AFTER_VIEWS_MAX',
    enableRetrievalStep: 'PWP__PW__ENABLE_RETRIEVAL_STEP',
    retrievalStepDefault: 'PWP__PW__RETRIEVAL_STEP_DEFAULT',
    enableDeletablePushes: 'PWP__PW__ENABLE_DELETABLE_PUSHES',
    deletablePushesDefault: 'PWP__PW__DELETABLE_PUSHES_DEFAULT',
  }),
});

export const URL_PUSHES = group({
  title: 'URL pushes',
  settings: {
    enabled: flag({ name: 'PWP__ENABLE_URL_PUSHES', default: true, meaning: 'URL pushes (on by default, as in the reference 2.11.4).' }),
    ...kindSettings('a URL push', {
      expireAfterDaysDefault: 'PWP__URL__EXPIRE_AFTER_DAYS_DEFAULT',
      expireAfterDaysMin: 'PWP__URL__EXPIRE_AFTER_DAYS_MIN',
      expireAfterDaysMax: 'PWP__URL__EXPIRE_AFTER_DAYS_MAX',
      expireAfterViewsDefault: 'PWP__URL__EXPIRE_AFTER_VIEWS_DEFAULT',
      expireAfterViewsMin: 'PWP__URL__EXPIRE_AFTER_VIEWS_MIN',
      expireAfterViewsMax: 'PWP__URL__EXPIRE_AFTER_VIEWS_MAX',
      enableRetrievalStep: 'PWP__URL__ENABLE_RETRIEVAL_STEP',
      retrievalStepDefault: 'PWP__URL__RETRIEVAL_STEP_DEFAULT',
      enableDeletablePushes: 'PWP__URL__ENABLE_DELETABLE_PUSHES',
      deletablePushesDefault: 'PWP__URL__DELETABLE_PUSHES_DEFAULT',
    }),
  },
});

export const FILE_PUSHES = group({
  title: 'File pushes',
  settings: {
    enabled: flag({
      name: 'PWP__ENABLE_FILE_PUSHES',
      default: true,
      meaning: 'File pushes (on by default, as in the reference 2.11.4); they need an API token.',
    }),
    ...kindSettings('a file push', {
      expireAfterDaysDefault: 'PWP__FILES__EXPIRE_AFTER_DAYS_DEFAULT',
      expireAfterDaysMin: 'PWP__FILES__EXPIRE_AFTER_DAYS_MIN',
      expireAfterDaysMax: 'PWP__FILES__EXPIRE_AFTER_DAYS_MAX',
      expireAfterViewsDefault: 'PWP__FILES__EXPIRE_AFTER_VIEWS_DEFAULT',
      expireAfterViewsMin: 'PWP__FILES__EXPIRE_AFTER_VIEWS_MIN',
      expireAfterViewsMax: 'PWP__FILES__EXPIRE_AFTER_VIEWS_MAX',
      enableRetrievalStep: 'PWP__FILES__ENABLE_RETRIEVAL_STEP',
      retrievalStepDefault: 'PWP__FILES__RETRIEVAL_STEP_DEFAULT',
      enableDeletablePushes: 'PWP__FILES__ENABLE_DELETABLE_PUSHES',
      deletablePushesDefault: 'PWP__FILES__DELETABLE_PUSHES_DEFAULT',
    }),
  },
});

export const QR_PUSHES = group({
  title: 'QR pushes',
  settings: {
    enabled: flag({ name: 'PWP__ENABLE_QR_PUSHES', default: true, meaning: 'QR code pushes (on by default, as in the reference 2.11.4).' }),
    ...kindSettings('a QR push', {
      expireAfterDaysDefault: 'PWP__QR__EXPIRE_AFTER_DAYS_DEFAULT',
      expireAfterDaysMin: 'PWP__QR__EXPIRE_AFTER_DAYS_MIN',
      expireAfterDaysMax: 'PWP__QR__EXPIRE_AFTER_DAYS_MAX',
      expireAfterViewsDefault: 'PWP__QR__EXPIRE_AFTER_VIEWS_DEFAULT',
      expireAfterViewsMin: 'PWP__QR__EXPIRE_AFTER_VIEWS_MIN',
      expireAfterViewsMax: 'PWP__QR__EXPIRE_AFTER_VIEWS_MAX',
      enableRetrievalStep: 'PWP__QR__ENABLE_RETRIEVAL_STEP',
      retrievalStepDefault: 'PWP__QR__RETRIEVAL_STEP_DEFAULT',
      enableDeletablePushes: 'PWP__QR__ENABLE_DELETABLE_PUSHES',
      deletablePushesDefault: 'PWP__QR__DELETABLE_PUSHES_DEFAULT',
    }),
  },
});

export function readKinds(read: Reader): Record<PushKind, KindSettings> {
  return {
    text: readKind(read, TEXT_PUSHES.settings, true),
    file: readKind(read, FILE_PUSHES.settings, read(FILE_PUSHES.settings.enabled)),
    url: readKind(read, URL_PUSHES.settings, read(URL_PUSHES.settings.enabled)),
    qr: readKind(read, QR_PUSHES.settings, read(QR_PUSHES.settings.enabled)),
  };
}

function readKind(read: Reader, kind: ReturnType<typeof kindSettings>, enabled: boolean): KindSettings {
  return {
    enabled,
    expireAfterDays: readRange(read, kind.expireAfterDaysMin, kind.expireAfterDaysMax, kind.expireAfterDaysDefault),
    expireAfterViews: readRange(read, kind.expireAfterViewsMin, kind.expireAfterViewsMax, kind.expireAfterViewsDefault),
    retrievalStep: { enabled: read(kind.enableRetrievalStep), default: read(kind.retrievalStepDefault) },
    deletableByViewer: { enabled: read(kind.enableDeletablePushes), default: read(kind.deletablePushesDefault) },
  };
}

/** MIN and MAX within the hard limits, MAX at least MIN, and DEFAULT within them (moved into them when unset). */
function readRange(read: Reader, minSetting: BoundedSetting, maxSetting: BoundedSetting, defaultSetting: BoundedSetting): Range {
  const min = read(minSetting);
  const max = read(maxSetting.within({ min }));
  const fallback = Math.min(Math.max(defaultSetting.default, min), max);
  return { min, max, default: read(defaultSetting.within({ min, max, default: fallback })) };
}
