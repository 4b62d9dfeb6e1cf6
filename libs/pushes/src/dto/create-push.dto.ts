import { applyDecorators, type Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type as TypeOf } from 'class-transformer';
import { IsArray, IsIn, IsOptional, IsString, MaxLength, ValidateBy, ValidateNested } from 'class-validator';
import { PUSH_KINDS, type PushKind } from '@app/config';
import { CarriesFieldErrors, IsPaddedBase64, OptionalBoolean, OptionalInteger, OptionalText, ReportsFieldErrors } from '@app/common';
import { describeDurations, LIFETIME_BY_DURATION } from '../expiry';

/** The longest text payload, in characters. */
export const TEXT_PAYLOAD_MAX = 1_048_576;

const LENIENT_INTEGER = 'Decimal strings such as "7" are accepted; null or omitted means the kind\'s default.';
const LENIENT_BOOLEAN =
  'Also accepts "true"/"false", "1"/"0", 1/0, "on"/"off", "yes"/"no"; omitted means the kind\'s default. Forced false when the setting disables the option.';

/** A file in a JSON body, for clients that cannot send multipart. */
export class JsonFileInput {
  @ApiProperty({ type: String, maxLength: 1024, description: 'Shown to the recipient; data, never a path (control characters and slashes are removed, 255 characters kept).', example: 'contract.pdf' })
  @IsString({ message: 'Filename must be a string.' })
  @MaxLength(1024, { message: 'Filename is too long (maximum is 1024 characters).' })
  filename!: string;

  @ApiPropertyOptional({ type: String, maxLength: 255, description: 'A `type/subtype`; guessed from the filename when missing or vague.', example: 'application/pdf' })
  @IsOptional()
  @IsString({ message: 'Content type must be a string.' })
  @MaxLength(255, { message: 'Content type is too long (maximum is 255 characters).' })
  content_type?: string;

  @ApiProperty({ type: String, format: 'byte', description: "The file's bytes, base64-encoded; the whole JSON body must fit PWP__FILES__MAX_JSON_BODY_SIZE.", example: 'JVBERi0xLjcK' })
  @IsString({ message: 'Data must be base64.' })
  @IsPaddedBase64('Data must be base64.')
  data!: string;
}

const NOTIFY_EMAILS_TO = {
  description:
    'Mail the link to these recipients (comma-separated, at most 5 over all sends of the push, repeats dropped case-insensitively): signed-in owners only, when the instance has mail (`features.pushes.email_auto_dispatch`). The mail holds the link, never the payload or passphrase.',
  example: 'alice@example.com,bob@example.com',
};
const NOTIFY_EMAILS_TO_LOCALE = {
  description:
    "The recipients' language, one of the reference's 34 codes (en, de, ja, ur, ...): the mail is written in it when the instance offers it (enabled, its catalogue shipped), and its link then opens the secret's page in it (`?locale=`); otherwise the mail is in the instance's default language.",
  example: 'de',
};

export class PushInput {
  @ApiPropertyOptional({
    type: String,
    enum: PUSH_KINDS,
    description:
      'Default `text`, or `file` when `files` is non-empty. A kind disabled on this instance (see GET /api/v2/version) is a 422.',
    example: 'text',
  })
  @IsOptional()
  @IsIn(PUSH_KINDS, { message: 'Kind must be one of text, file, url or qr.' })
  kind?: PushKind;

  @ApiPropertyOptional({
    type: String,
    maxLength: TEXT_PAYLOAD_MAX,
    description:
      'The secret. Required and not blank for text, url and qr pushes: up to 1,048,576 characters for text, 1,024 for qr; url pushes need an absolute http(s) URL. Valid Unicode without NUL characters.',
    example: 'correct horse battery staple',
  })
  @OptionalText(TEXT_PAYLOAD_MAX)
  payload?: string;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    description: `Days until expiry, within the kind's range (default 7, from 1 to 90 unless configured); outside it is a 422. ${LENIENT_INTEGER}`,
    example: 7,
  })
  @OptionalInteger()
  expire_after_days?: number;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    enum: [...LIFETIME_BY_DURATION.keys()],
    description: `The reference's choice of lifetime, as its official CLI sends it instead of expire_after_days: ${describeDurations()}. The lifetimes under a day (0 to 5) are exact (expires_at says when; expire_after_days reports 1) unless the instance turns them off (PWP__ALLOW_SUBDAY_EXPIRY=false: then a 422). Other values are a 422, and so is a different expire_after_days beside it; the days, rounded up, must lie in the kind's range. ${LENIENT_INTEGER}`,
    example: 12,
  })
  @OptionalInteger()
  expire_after_duration?: number;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    description: `Counted views until expiry, within the kind's range (default 5, from 1 to 100 unless configured); outside it is a 422. ${LENIENT_INTEGER}`,
    example: 5,
  })
  @OptionalInteger()
  expire_after_views?: number;

  @ApiPropertyOptional({
    type: Boolean,
    description: `Whether viewers may delete the push (ignored for url pushes). ${LENIENT_BOOLEAN}`,
    example: true,
  })
  @OptionalBoolean()
  deletable_by_viewer?: boolean;

  @ApiPropertyOptional({
    type: Boolean,
    description: `Whether html_url shows a click-through page first. ${LENIENT_BOOLEAN}`,
    example: true,
  })
  @OptionalBoolean()
  retrieval_step?: boolean;

  @ApiPropertyOptional({
    type: String,
    maxLength: 1024,
    description: 'Needed to retrieve the push; whitespace-only means none. Stored only as an Argon2id hash and never returned.',
    example: 'open sesame',
  })
  @OptionalText(1024)
  passphrase?: string;

  @ApiPropertyOptional({ type: String, maxLength: 255, description: 'A plain label, shown to the owner.', example: 'Wi-Fi for guests' })
  @OptionalText(255)
  name?: string;

  @ApiPropertyOptional({
    type: String,
    maxLength: 10_000,
    description: 'A private note for the owner, encrypted at rest.',
    example: 'Sent to Alice',
  })
  @OptionalText(10_000)
  note?: string;

  @ApiPropertyOptional({ type: String, maxLength: 2000, ...NOTIFY_EMAILS_TO })
  @OptionalText(2000)
  notify_emails_to?: string;

  @ApiPropertyOptional({ type: String, maxLength: 8, ...NOTIFY_EMAILS_TO_LOCALE })
  @OptionalText(8)
  notify_emails_to_locale?: string;

  @ApiPropertyOptional({
    type: [JsonFileInput],
    description:
      'Files, base64-encoded, for clients that cannot send multipart (which streams and suits large files better: `push[files][]` parts). Makes the push a file push; file pushes need authentication. At most PWP__FILES__MAX_FILE_UPLOADS (10) files.',
  })
  @IsOptional()
  @IsArray({ message: 'Files must be a list.' })
  @ValidateNested({ each: true })
  @TypeOf(() => JsonFileInput)
  files?: JsonFileInput[];
}

const isFilledObject = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0;

/** The reference's 400 for a create whose wrapper object is missing or empty. */
export const wrapperMissing = (wrapper: string) => `param is missing or the value is empty or invalid: ${wrapper}`;

/**
 * The object a create body wraps its push in (`push`, or API v1's `password`, `file_push`, `url`):
 * a missing or empty one is a 400 naming it; its fields are validated as `input`'s, and their
 * errors reported together with the creation rules' (see CarriesFieldErrors).
 */
export function WrappedPush(input: () => Type, description: string): PropertyDecorator {
  return (target, property) => {
    const wrapper = String(property);
    applyDecorators(
      ApiProperty({ type: input(), description: `${description} Unknown keys are ignored; a missing or empty object is a 400.` }),
      // Emptiness is judged on the object as sent: an input instance always has its declared fields as own keys.
      Transform(({ value, obj }: { value: unknown; obj: Record<string, unknown> }) => (isFilledObject(obj[wrapper]) ? value : undefined)),
      ValidateBy({ name: 'pushObject', validator: { validate: isFilledObject, defaultMessage: () => wrapperMissing(wrapper) } }),
      ValidateNested(),
      TypeOf(input),
      // Its type errors are reported with the service's rule errors, in one 422 (PushesService.creationRules).
      CarriesFieldErrors(),
    )(target, property);
  };
}

export class CreatePushBody {
  @WrappedPush(() => PushInput, 'The push to create.')
  push!: PushInput;
}

/** POST /api/v2/pushes/:url_token/notify_emails: top-level, as the reference takes it. */
@ReportsFieldErrors()
export class NotifyEmailsInput {
  @ApiProperty({ type: String, maxLength: 2000, ...NOTIFY_EMAILS_TO })
  @OptionalText(2000)
  notify_emails_to?: string;

  @ApiPropertyOptional({ type: String, maxLength: 8, ...NOTIFY_EMAILS_TO_LOCALE })
  @OptionalText(8)
  notify_emails_to_locale?: string;
}
