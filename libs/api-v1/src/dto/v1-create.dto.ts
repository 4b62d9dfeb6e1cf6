import { OmitType } from '@nestjs/swagger';
import { PushInput, WrappedPush } from '@app/pushes';

/**
 * The reference's v1 never mails a link: its create takes no `notify_emails_to` or
 * `notify_emails_to_locale`, so they are not fields here and the validation pipe drops them, as
 * it drops every unknown key.
 */
const NOT_IN_V1 = ['notify_emails_to', 'notify_emails_to_locale'] as const;

/** `POST /p.json`. */
export class V1PasswordInput extends OmitType(PushInput, NOT_IN_V1) {}

/** `POST /f.json`: the route says the kind. */
export class V1FilePushInput extends OmitType(PushInput, ['kind', ...NOT_IN_V1] as const) {}

/** `POST /r.json`: the route says the kind; URL pushes have no files and no viewer deletion. */
export class V1UrlInput extends OmitType(PushInput, ['kind', 'deletable_by_viewer', 'files', ...NOT_IN_V1] as const) {}

export class V1PasswordBody {
  @WrappedPush(() => V1PasswordInput, 'The push to create (text by default; a file push when `files` is given, which needs an API token).')
  password!: V1PasswordInput;
}

export class V1FilePushBody {
  @WrappedPush(() => V1FilePushInput, 'The file push to create.')
  file_push!: V1FilePushInput;
}

export class V1UrlBody {
  @WrappedPush(() => V1UrlInput, 'The URL push to create: `payload` is the URL.')
  url!: V1UrlInput;
}

/**
 * `/p.json`'s push: a `files` key makes it a file push whatever `kind` says, as the reference
 * decides when none is given; its Terraform provider sends `kind=text` beside its files.
 */
export const passwordPush = (input: V1PasswordInput): PushInput => (input.files === undefined ? input : { ...input, kind: 'file' });
