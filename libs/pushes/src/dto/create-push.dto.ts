import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsArray, IsIn, IsOptional, ValidateBy, ValidateNested } from 'class-validator';
import { PUSH_KINDS, type PushKind } from '@app/config';
import { OptionalBoolean, OptionalInteger, OptionalText } from '@app/common';
import { DAYS_BY_DURATION, describeDurations } from '../expiry';

export const PUSH_MISSING = 'param is missing or the value is empty or invalid: push';
/** The longest text payload, in characters. */
export const TEXT_PAYLOAD_MAX = 1_048_576;

const LENIENT_INTEGER = 'Decimal strings such as "7" are accepted; null or omitted means the kind\'s default.';
const LENIENT_BOOLEAN =
  'Also accepts "true"/"false", "1"/"0", 1/0, "on"/"off", "yes"/"no"; omitted means the kind\'s default. Forced false when the setting disables the option.';

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
    enum: [...DAYS_BY_DURATION.keys()],
    description: `The reference's duration choice, as its official CLI sends it instead of expire_after_days: ${describeDurations()}. Other values are a 422, and so is a different expire_after_days beside it; the days must lie in the kind's range. ${LENIENT_INTEGER}`,
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

  @ApiPropertyOptional({
    type: 'array',
    items: {},
    description:
      'Reserved for file attachments, which are not available yet: a non-empty list makes the push a file push, answered with 422.',
  })
  @IsOptional()
  @IsArray({ message: 'Files must be a list.' })
  files?: unknown[];
}

const isFilledObject = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0;

export class CreatePushBody {
  @ApiProperty({ type: PushInput, description: 'The push to create. Unknown keys are ignored; a missing or empty object is a 400.' })
  // Emptiness is judged on the object as sent: a PushInput instance always has its declared fields as own keys.
  @Transform(({ value, obj }: { value: unknown; obj: { push?: unknown } }) => (isFilledObject(obj.push) ? value : undefined))
  @ValidateBy({ name: 'pushObject', validator: { validate: isFilledObject, defaultMessage: () => PUSH_MISSING } })
  @ValidateNested()
  @Type(() => PushInput)
  push!: PushInput;
}
