import { Transform, Type } from 'class-transformer';
import { IsArray, IsIn, IsOptional, ValidateBy, ValidateNested } from 'class-validator';
import { PUSH_KINDS, type PushKind } from '@app/config';
import { OptionalBoolean, OptionalInteger, OptionalText } from '@app/common';

export const PUSH_MISSING = 'param is missing or the value is empty or invalid: push';
/** The longest text payload, in characters. */
export const TEXT_PAYLOAD_MAX = 1_048_576;

export class PushInput {
  @IsOptional()
  @IsIn(PUSH_KINDS, { message: 'Kind must be one of text, file, url or qr.' })
  kind?: PushKind;

  @OptionalText(TEXT_PAYLOAD_MAX)
  payload?: string;

  @OptionalInteger()
  expire_after_days?: number;

  @OptionalInteger()
  expire_after_views?: number;

  @OptionalBoolean()
  deletable_by_viewer?: boolean;

  @OptionalBoolean()
  retrieval_step?: boolean;

  @OptionalText(1024)
  passphrase?: string;

  @OptionalText(255)
  name?: string;

  @OptionalText(10_000)
  note?: string;

  @IsOptional()
  @IsArray({ message: 'Files must be a list.' })
  files?: unknown[];
}

const isFilledObject = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0;

export class CreatePushBody {
  // Emptiness is judged on the object as sent: a PushInput instance always has its declared fields as own keys.
  @Transform(({ value, obj }: { value: unknown; obj: { push?: unknown } }) => (isFilledObject(obj.push) ? value : undefined))
  @ValidateBy({ name: 'pushObject', validator: { validate: isFilledObject, defaultMessage: () => PUSH_MISSING } })
  @ValidateNested()
  @Type(() => PushInput)
  push!: PushInput;
}
