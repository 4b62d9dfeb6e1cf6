import { Injectable } from '@nestjs/common';
import { InjectSettings, Settings } from '@app/config';
import { APPLICATION_VERSION } from './application-version';
import type { V1VersionResponse, VersionResponse } from './version-response.dto';

@Injectable()
export class VersionService {
  private readonly response: VersionResponse;

  constructor(@InjectSettings() settings: Settings) {
    // Settings are fixed for the life of the process, so the answer is computed once.
    this.response = {
      application_version: APPLICATION_VERSION,
      api_version: '2.1',
      edition: 'oss',
      features: {
        anonymous_access: settings.allowAnonymous,
        api_token_authentication: true,
        accounts: { enabled: false },
        pushes: {
          enabled: true,
          email_auto_dispatch: settings.mail.emailAvailable,
          file_attachments: { enabled: settings.kinds.file.enabled, requires_authentication: true },
          url_pushes: { enabled: settings.kinds.url.enabled },
          qr_code_pushes: { enabled: settings.kinds.qr.enabled },
        },
        requests: { enabled: settings.requests.enabled },
      },
    };
  }

  describe(): VersionResponse {
    return this.response;
  }

  /** API v1's version endpoint: the reference's v1 answer, without features. */
  describeV1(): V1VersionResponse {
    return { application_version: APPLICATION_VERSION, api_version: '1.5', edition: 'oss' };
  }
}
