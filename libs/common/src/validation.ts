import { applyDecorators, type ArgumentMetadata, type Type, ValidationError, ValidationPipe } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, ValidateBy, ValidationArguments, type ValidatorOptions } from 'class-validator';
import { BadRequestError, type FieldErrors, ValidationFailedError } from './errors';

/** "expire_after_days" → "Expire after days", as the reference words its messages. */
/** An absolute http(s) URL with a host: the only URLs a URL push may hold, and send anyone to. */
export function isWebUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

export function humanize(field: string): string {
  const words = field.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const message = (suffix: string) => (args: ValidationArguments) => `${humanize(args.property)} ${suffix}`;

const TRUE_VALUES = new Set<unknown>([true, 1, 'true', '1', 'on', 'yes']);
const FALSE_VALUES = new Set<unknown>([false, 0, 'false', '0', 'off', 'no']);

/** Optional boolean; also accepts "true"/"false", "1"/"0", "on"/"off", "yes"/"no". */
export function OptionalBoolean(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) => {
      const word = typeof value === 'string' ? value.trim().toLowerCase() : value;
      if (TRUE_VALUES.has(word)) return true;
      if (FALSE_VALUES.has(word)) return false;
      return value;
    }),
    IsOptional(),
    IsBoolean({ message: message('must be true or false.') }),
  );
}

/** Optional integer; decimal strings such as "7" are accepted. Bounds are the caller's rule. */
export function OptionalInteger(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^\s*-?\d{1,15}\s*$/.test(value) ? Number(value) : value)),
    IsOptional(),
    IsInt({ message: message('must be an integer.') }),
  );
}

/** Counts characters (code points) without materialising them when the string is clearly short enough. */
export function characterCount(value: string, limit: number): number {
  if (value.length <= limit) return value.length;
  let count = 0;
  for (const _ of value) count++;
  return count;
}

/**
 * Optional text: a well-formed Unicode string (lone surrogates would be silently altered when
 * stored), without NUL characters, of at most `maxChars` characters. null means omitted, so the
 * value is a string or undefined, as its type says.
 */
export function OptionalText(maxChars: number): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) => (value === null ? undefined : value)),
    IsOptional(),
    IsString({ message: message('must be a string.') }),
    ValidateBy({
      name: 'cleanText',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || (value.isWellFormed() && !value.includes('\0')),
        defaultMessage: message('must be valid text without NUL characters.'),
      },
    }),
    ValidateBy({
      name: 'maxChars',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || characterCount(value, maxChars) <= maxChars,
        defaultMessage: message(`is too long (maximum is ${maxChars.toLocaleString('en-US')} characters).`),
      },
    }),
  );
}

/**
 * A top-level failure (a missing body, a bad query parameter) is a 400 with its message; failures
 * inside a nested object are a 422 with a message list per field.
 */
export function toApiError(errors: ValidationError[]): Error {
  const fieldErrors: FieldErrors = {};
  for (const error of errors) {
    if (error.children?.length) collect(error.children, fieldErrors);
    else if (reportsFieldErrors(error.target)) collect([error], fieldErrors);
    else return new BadRequestError(Object.values(error.constraints ?? {})[0] ?? 'Bad request');
  }
  return new ValidationFailedError(fieldErrors);
}

const REPORTS_FIELD_ERRORS = 'pwpush:reports-field-errors';

/**
 * Marks a request body whose own fields' errors answer 422 with `errors` naming each field, as a
 * create's do, rather than the 400 a query's bad parameter gets.
 */
export const ReportsFieldErrors = (): ClassDecorator => (target) => Reflect.defineMetadata(REPORTS_FIELD_ERRORS, true, target);

function reportsFieldErrors(target: object | undefined): boolean {
  return target !== undefined && Reflect.getMetadata(REPORTS_FIELD_ERRORS, target.constructor) === true;
}

function collect(errors: ValidationError[], into: FieldErrors, prefix = ''): void {
  for (const error of errors) {
    const field = `${prefix}${error.property}`;
    const messages = Object.values(error.constraints ?? {});
    if (messages.length) into[field] = [...(into[field] ?? []), ...messages];
    if (error.children?.length) collect(error.children, into, `${field}.`);
  }
}

const CARRIES_FIELD_ERRORS = 'pwpush:carries-field-errors';
const FIELD_ERRORS = Symbol('fieldErrors');

/**
 * Marks a nested input whose rules live in a service (a required field that depends on another,
 * ranges that come from settings): its field errors (a wrong type, too long) are not thrown by the
 * validation pipe but handed on to the service with the input, which adds those of its own rules
 * and throws them all at once (see fieldErrorsOf), so that one 422 names every field at fault.
 * The fields at fault are removed from the input; the service must start from fieldErrorsOf.
 */
export function CarriesFieldErrors(): PropertyDecorator {
  return (target, property) => {
    const carried = (Reflect.getMetadata(CARRIES_FIELD_ERRORS, target) as (string | symbol)[] | undefined) ?? [];
    Reflect.defineMetadata(CARRIES_FIELD_ERRORS, [...carried, property], target);
  };
}

/** The field errors the validation pipe left on an input marked with @CarriesFieldErrors (none when it is valid). */
export function fieldErrorsOf(input: object): FieldErrors {
  return (input as { [FIELD_ERRORS]?: FieldErrors })[FIELD_ERRORS] ?? {};
}

/**
 * Hands the errors of inputs marked @CarriesFieldErrors on to their service, when they are the
 * body's only errors: any other (a missing wrapper: a 400) is thrown as usual.
 */
function carryFieldErrors(body: object, errors: ValidationError[]): ValidationError[] {
  const carried = new Set(Reflect.getMetadata(CARRIES_FIELD_ERRORS, body) as (string | symbol)[] | undefined);
  if (errors.length === 0 || !errors.every((error) => carried.has(error.property) && !error.constraints && error.children?.length)) return errors;
  for (const error of errors) {
    const input = (body as Record<string, Record<string | symbol, unknown>>)[error.property];
    const fieldErrors: FieldErrors = {};
    collect(error.children!, fieldErrors);
    for (const child of error.children!) delete input[child.property];
    // Enumerable, so that a copy of the input (`{ ...input, kind }`) keeps its errors.
    input[FIELD_ERRORS] = fieldErrors;
  }
  return [];
}

/**
 * Nest's ValidationPipe, with one shortcut: an empty object (the query of most GETs) validates
 * the same way every time, so each DTO class checks it once and then gets a fresh instance, as
 * class-transformer would build it from no keys, without running class-transformer and
 * class-validator on every request. A class that refuses an empty object is checked every time.
 */
class ApiValidationPipe extends ValidationPipe {
  private readonly acceptsEmpty = new Set<Type>();

  protected override async validate(object: object, options?: ValidatorOptions): Promise<ValidationError[]> {
    return carryFieldErrors(object, await super.validate(object, options));
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const metatype = metadata.metatype;
    if (metatype === undefined || !isEmptyObject(value)) return super.transform(value, metadata);
    if (this.acceptsEmpty.has(metatype)) return new metatype();
    const result: unknown = await super.transform(value, metadata);
    if (result instanceof metatype) this.acceptsEmpty.add(metatype);
    return result;
  }
}

/** A plain object without keys (Node's query parser makes objects without a prototype). */
function isEmptyObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && Object.keys(value).length === 0;
}

export function createValidationPipe(): ValidationPipe {
  return new ApiValidationPipe({
    transform: true,
    whitelist: true,
    forbidUnknownValues: false,
    // One message per field is enough; the first failing rule is the one to fix. Every field is
    // still checked, and the services add the fields their own rules find at fault (CarriesFieldErrors).
    stopAtFirstError: true,
    // Errors keep the object they were found in, for ReportsFieldErrors; never logged or answered.
    validationError: { target: true },
    exceptionFactory: toApiError,
  });
}

/**
 * Whether a string is padded base64 (`A-Z a-z 0-9 + /`, `=` only as the last one or two of a
 * length divisible by 4). Without a regular expression over the whole value: class-validator's
 * IsBase64 anchors a quantified pattern, and on the tens of MB a JSON file carries V8's regexp
 * backtracking can run out of stack (a RangeError, a 500) depending on what else is on it.
 */
export function isPaddedBase64(value: string): boolean {
  if (value.length % 4 !== 0) return false;
  const padding = value.endsWith('==') ? 2 : value.endsWith('=') ? 1 : 0;
  // One character class, unanchored: a scan that keeps no backtracking state.
  return !/[^A-Za-z0-9+/]/.test(value.slice(0, value.length - padding));
}

export const IsPaddedBase64 = (message: string): PropertyDecorator =>
  ValidateBy({ name: 'paddedBase64', validator: { validate: (value: unknown) => typeof value === 'string' && isPaddedBase64(value), defaultMessage: () => message } });
