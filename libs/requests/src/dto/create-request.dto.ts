import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { OptionalBoolean, OptionalInteger, OptionalText } from '@app/common';
import { LIFETIME_BY_DURATION, TEXT_PAYLOAD_MAX, WrappedPush } from '@app/pushes';
import { describeCloseAfter } from '../closing-times';

const LENIENT_BOOLEAN = 'Also accepts "true"/"false", "1"/"0", 1/0, "on"/"off", "yes"/"no"; omitted means false.';

export class RequestInput {
  @ApiProperty({
    type: String,
    maxLength: TEXT_PAYLOAD_MAX,
    description: 'The message to the responder: what to send. Required, not blank, up to 1,048,576 characters; encrypted at rest.',
    example: 'Please send the production database password.',
  })
  @OptionalText(TEXT_PAYLOAD_MAX)
  request?: string;

  @ApiPropertyOptional({
    type: 'integer',
    enum: [...LIFETIME_BY_DURATION.keys()],
    description: `When the request closes by itself, counted from creation: ${describeCloseAfter()}. Default 8 (3 days). Other values are a 422. Decimal strings such as "8" are accepted.`,
    example: 8,
  })
  @OptionalInteger()
  close_after_duration?: number;

  @ApiPropertyOptional({
    type: String,
    maxLength: 1024,
    description: 'Needed to open the request and answer it; whitespace-only means none. Stored only as an Argon2id hash and never returned.',
    example: 'open sesame',
  })
  @OptionalText(1024)
  passphrase?: string;

  @ApiPropertyOptional({ type: String, maxLength: 255, description: 'A plain label, shown to the requester only.', example: 'Database password from Bob' })
  @OptionalText(255)
  name?: string;

  @ApiPropertyOptional({ type: String, maxLength: 10_000, description: 'A private note for the requester, encrypted at rest.', example: 'For the migration on Friday' })
  @OptionalText(10_000)
  note?: string;

  @ApiPropertyOptional({ type: Boolean, description: `Whether the responder's page shows a click-through step first. ${LENIENT_BOOLEAN}`, example: false })
  @OptionalBoolean()
  retrieval_step?: boolean;

  @ApiPropertyOptional({ type: Boolean, description: `Whether the responder's page shows the requester's email address. ${LENIENT_BOOLEAN}`, example: true })
  @OptionalBoolean()
  include_requestor?: boolean;

  @ApiPropertyOptional({ type: Boolean, description: `Whether the answer may come with files (within the file pushes' limits). ${LENIENT_BOOLEAN}`, example: false })
  @OptionalBoolean()
  response_file_attachments?: boolean;

  @ApiPropertyOptional({
    type: String,
    maxLength: 2000,
    description:
      "Mail the request's link to the people who are to answer it (comma-separated, at most 5, repeats dropped case-insensitively), by the push rules: when the instance has mail (`features.pushes.email_auto_dispatch`), within the requester's daily limit. The mail says a secret is asked for and holds the link, never the message, note or passphrase.",
    example: 'bob@example.com',
  })
  @OptionalText(2000)
  notify_emails_to?: string;

  @ApiPropertyOptional({
    type: String,
    maxLength: 8,
    description: "The recipients' language, one of the reference's 34 codes: the mail is written in it when the instance offers it, and its link then opens the request's page in it (`?locale=`).",
    example: 'de',
  })
  @OptionalText(8)
  notify_emails_to_locale?: string;

  /** Set when a multipart body brought files (`request[files][]` parts); they are in the upload batch. */
  files?: unknown[];
}

export class CreateRequestBody {
  @WrappedPush(() => RequestInput, 'The request to create.')
  request!: RequestInput;
}

export class ResponseInput {
  @ApiPropertyOptional({
    type: String,
    maxLength: TEXT_PAYLOAD_MAX,
    description: 'The answer: the secret asked for. Required and not blank unless files come with it; up to 1,048,576 characters; encrypted at rest.',
    example: 'hunter2',
  })
  @OptionalText(TEXT_PAYLOAD_MAX)
  response?: string;

  /** Set when a multipart body brought files (`request[files][]` parts); they are in the upload batch. */
  files?: unknown[];
}

export class RespondBody {
  @WrappedPush(() => ResponseInput, 'The answer.')
  request!: ResponseInput;
}
