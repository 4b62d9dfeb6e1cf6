import { characterCount, DAY_MS, FieldFaults, fieldErrorsOf, humanize, isWebUrl } from '@app/common';
import type { PushKind, Range, Settings } from '@app/config';
import type { PushInput } from './dto/create-push.dto';
import { daysOf, describeDurations, describeLifetime, LIFETIME_BY_DURATION } from './expiry';

/**
 * The rules of creating a push, as pure functions of the settings: who may create what, which
 * kinds are on, and the kind's limits and options applied to the creator's choices. The service
 * enforces them; nothing here reads or writes anything.
 */

const QR_PAYLOAD_MAX = 1024;
export const DISABLED_MESSAGES: Record<PushKind, string> = {
  text: 'Text pushes are disabled.',
  file: 'File pushes are disabled.',
  url: 'URL pushes are disabled.',
  qr: 'QR code pushes are disabled.',
};

/** What a create asks for, as far as who may make it is concerned. */
export interface RequestedPush {
  /** `kind: "file"`, a `files` key or a file part. */
  withFiles: boolean;
  kind?: unknown;
}

/**
 * Why a creator without an owner (anonymous) may not make this push, if they may not: file pushes
 * need an owner, and so do URL pushes with PWP__URL__REQUIRE_ACCOUNT (a 401 with this message).
 */
export function anonymousRefusal(push: RequestedPush, settings: Pick<Settings, 'urlPushesRequireAccount'>): string | undefined {
  if (push.withFiles) return 'File pushes require authentication.';
  if (push.kind === 'url' && settings.urlPushesRequireAccount) return 'URL pushes require authentication.';
  return undefined;
}

/** A create's push as the settings shape it. */
export interface CreationRules {
  kind: PushKind;
  /** Milliseconds from creation to expiry. */
  lifetime: number;
  expireAfterDays: number;
  expireAfterViews: number;
  /** Null for URL pushes, which a viewer never deletes. */
  deletableByViewer: boolean | null;
  retrievalStep: boolean;
}

type CreationSettings = Pick<Settings, 'kinds' | 'allowSubdayExpiry'>;

/**
 * Applies the kind's settings to the creator's choices. Every field at fault is reported at once,
 * in one 422 with the type errors the validation pipe left on the input (fieldErrorsOf) and those
 * `judgeMore` adds (the link mail's).
 */
export function creationRules(input: PushInput, withFiles: boolean, settings: CreationSettings, judgeMore: (faults: FieldFaults) => void = () => undefined): CreationRules {
  const faults = new FieldFaults(fieldErrorsOf(input));
  // The kind decides every other rule: when it cannot be told, they cannot be judged.
  if (faults.has('kind') || faults.has('files')) faults.throwIfAny();
  const kind: PushKind = input.kind ?? (withFiles ? 'file' : 'text');
  const rules = settings.kinds[kind];
  if (!rules.enabled) faults.add('kind', DISABLED_MESSAGES[kind]);
  if (withFiles !== (kind === 'file')) faults.add('files', withFiles ? 'Files can only be attached to file pushes.' : 'A file push needs at least one file.');
  faults.add('payload', payloadFault(kind, input.payload));
  const lifetime = lifetimeOf(input, rules.expireAfterDays, settings.allowSubdayExpiry);
  if (typeof lifetime !== 'number') faults.add(lifetime.field, lifetime.message);
  const expireAfterViews = input.expire_after_views ?? rules.expireAfterViews.default;
  faults.add('expire_after_views', rangeFault('expire_after_views', expireAfterViews, rules.expireAfterViews));
  judgeMore(faults);
  faults.throwIfAny();
  // Past the faults, the lifetime is one.
  const ms = lifetime as number;
  const option = (toggle: { enabled: boolean; default: boolean }, chosen: boolean | undefined) => toggle.enabled && (chosen ?? toggle.default);
  return {
    kind,
    lifetime: ms,
    expireAfterDays: daysOf(ms),
    expireAfterViews,
    deletableByViewer: kind === 'url' ? null : option(rules.deletableByViewer, input.deletable_by_viewer),
    retrievalStep: option(rules.retrievalStep, input.retrieval_step),
  };
}

/** Why a payload is refused for this kind, if it is. */
function payloadFault(kind: PushKind, payload: string | undefined): string | undefined {
  if (kind === 'file') return undefined;
  if (payload === undefined || payload.trim() === '') return 'Payload is required.';
  if (kind === 'qr' && characterCount(payload, QR_PAYLOAD_MAX) > QR_PAYLOAD_MAX) return `Payload is too long (maximum is ${QR_PAYLOAD_MAX} characters).`;
  if (kind === 'url' && !isWebUrl(payload)) return 'Payload must be an absolute http or https URL.';
  return undefined;
}

type Fault = { field: string; message: string };

/**
 * The push's lifetime in milliseconds, or why it is refused: `expire_after_days`, or
 * `expire_after_duration` (the reference CLI's choice of lifetime) when given; both together must
 * agree. A lifetime under a day counts as 1 day against the kind's range, as `expire_after_days`
 * reports it.
 */
function lifetimeOf(input: PushInput, range: Range, allowSubday: boolean): number | Fault {
  const duration = input.expire_after_duration ?? undefined;
  const days = input.expire_after_days ?? undefined;
  if (duration === undefined) {
    const chosen = days ?? range.default;
    const message = rangeFault('expire_after_days', chosen, range);
    return message === undefined ? chosen * DAY_MS : { field: 'expire_after_days', message };
  }
  const field = 'expire_after_duration';
  const lifetime = LIFETIME_BY_DURATION.get(duration);
  if (lifetime === undefined || (lifetime < DAY_MS && !allowSubday)) {
    return { field, message: `Expire after duration must be one of ${describeDurations(allowSubday)}.` };
  }
  const durationDays = daysOf(lifetime);
  if (days !== undefined && days !== durationDays) {
    return { field, message: `Expire after duration ${duration} means ${describeLifetime(lifetime)}, but expire after days is ${days}: send one of them.` };
  }
  if (durationDays < range.min || durationDays > range.max) {
    return { field, message: `Expire after duration ${duration} (${describeLifetime(lifetime)}) is outside the allowed ${range.min} to ${range.max} days.` };
  }
  return lifetime;
}

function rangeFault(field: 'expire_after_days' | 'expire_after_views', value: number, range: Range): string | undefined {
  return value < range.min || value > range.max ? `${humanize(field)} must be between ${range.min} and ${range.max}.` : undefined;
}
