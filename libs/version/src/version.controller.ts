import { Controller, Get } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { Public } from '@app/auth';
import { VersionResponse } from './version-response.dto';
import { ApiGetVersion } from './version.openapi';
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
