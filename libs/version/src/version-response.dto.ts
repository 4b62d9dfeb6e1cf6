import { ApiProperty } from '@nestjs/swagger';

/** `{"enabled": boolean}`, the shape of most feature flags. */
export class FeatureFlag {
  @ApiProperty({ example: true })
  enabled!: boolean;
}

export class FileAttachmentsFeature {
  @ApiProperty({ description: 'Always false for now: file attachments are not available yet.', example: false })
  enabled!: boolean;

  @ApiProperty({ description: 'File pushes need an API token.', example: true })
  requires_authentication!: boolean;
}

export class PushesFeatures {
  @ApiProperty({ example: true })
  enabled!: boolean;

  @ApiProperty({ example: false })
  email_auto_dispatch!: boolean;

  @ApiProperty({ type: FileAttachmentsFeature })
  file_attachments!: FileAttachmentsFeature;

  @ApiProperty({ type: FeatureFlag, description: 'Whether `kind: "url"` pushes may be created (PWP__ENABLE_URL_PUSHES).' })
  url_pushes!: FeatureFlag;

  @ApiProperty({ type: FeatureFlag, description: 'Whether `kind: "qr"` pushes may be created (PWP__ENABLE_QR_PUSHES).' })
  qr_code_pushes!: FeatureFlag;
}

export class VersionFeatures {
  @ApiProperty({ description: 'Whether pushes may be created and retrieved without a token (PWP__ALLOW_ANONYMOUS).', example: true })
  anonymous_access!: boolean;

  @ApiProperty({ example: true })
  api_token_authentication!: boolean;

  @ApiProperty({ type: FeatureFlag, description: 'Sign-up and sign-in pages (not offered: accounts are managed with the CLI).' })
  accounts!: FeatureFlag;

  @ApiProperty({ type: PushesFeatures })
  pushes!: PushesFeatures;

  @ApiProperty({ type: FeatureFlag, description: 'Secret requests under /api/v2/requests and their pages (PWP__ENABLE_REQUESTS).' })
  requests!: FeatureFlag;
}

export class VersionResponse {
  @ApiProperty({ description: "This instance's version.", example: '1.2.3' })
  application_version!: string;

  @ApiProperty({ description: 'The API version implemented.', example: '2.1' })
  api_version!: string;

  @ApiProperty({ example: 'oss' })
  edition!: string;

  @ApiProperty({ type: VersionFeatures, description: 'What the live settings enable.' })
  features!: VersionFeatures;
}

/** API v1's version answer: the reference's, without features. */
export class V1VersionResponse {
  @ApiProperty({ description: "This instance's version.", example: '1.2.3' })
  application_version!: string;

  @ApiProperty({ description: 'The legacy API version implemented.', example: '1.5' })
  api_version!: string;

  @ApiProperty({ example: 'oss' })
  edition!: string;
}
