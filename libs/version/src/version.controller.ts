import { Controller, Get } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { Public } from '@app/auth';
import { V1VersionResponse, VersionResponse } from './version-response.dto';
import { ApiGetV1Version, ApiGetVersion } from './version.openapi';
import { VersionService } from './version.service';

@Public()
@SkipThrottle()
@Controller('api/v2/version')
export class VersionController {
  constructor(private readonly version: VersionService) {}

  @Get()
  @ApiGetVersion()
  describe(): VersionResponse {
    return this.version.describe();
  }
}

/** API v1's version endpoint; it answers even with v1 turned off, so clients can tell what this server speaks. */
@Public()
@SkipThrottle()
@Controller('api/v1/version')
export class V1VersionController {
  constructor(private readonly version: VersionService) {}

  @Get()
  @ApiGetV1Version()
  describe(): V1VersionResponse {
    return this.version.describeV1();
  }
}
