import { OmitType } from '@nestjs/swagger';
import { PushInput, WrappedPush } from '@app/pushes';

/** `POST /f.json`: the route says the kind. */
export class V1FilePushInput extends OmitType(PushInput, ['kind'] as const) {}

/** `POST /r.json`: the route says the kind; URL pushes have no files and no viewer deletion. */
export class V1UrlInput extends OmitType(PushInput, ['kind', 'deletable_by_viewer', 'files'] as const) {}

export class V1PasswordBody {
  @WrappedPush(() => PushInput, 'The push to create (text by default; a file push when `files` is given, which needs an API token).')
  password!: PushInput;
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
export const passwordPush = (input: PushInput): PushInput => (input.files === undefined ? input : { ...input, kind: 'file' });
