import { Controller, Get } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { Public } from '@app/auth';
import { type V1VersionResponse, VersionService } from '@app/version';
import { ApiV1Version } from './api-v1.openapi';

/** API v1's version endpoint; off with the rest of v1, so a client cannot detect a v1 that is gone. */
@Public()
@SkipThrottle()
@Controller('api/v1/version')
export class V1VersionController {
  constructor(private readonly version: VersionService) {}

  @Get()
  @ApiV1Version()
  describe(): V1VersionResponse {
    return this.version.describeV1();
  }
}
