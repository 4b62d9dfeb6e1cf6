import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiJsonResponse } from '@app/common';
import { VersionResponse } from './version-response.dto';

export const ApiGetVersion = () =>
  applyDecorators(
    ApiTags('version'),
    ApiOperation({
      operationId: 'getVersion',
      summary: 'Instance version and enabled features',
      description: 'Always public and never rate-limited: a token that is sent is not even checked. Every flag reflects the live settings.',
    }),
    ApiJsonResponse(200, { type: VersionResponse, description: 'The instance and its features.' }),
  );
