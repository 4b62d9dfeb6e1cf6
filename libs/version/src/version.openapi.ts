import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiJsonResponse } from '@app/common';
import { V1VersionResponse, VersionResponse } from './version-response.dto';

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

export const ApiGetV1Version = () =>
  applyDecorators(
    ApiTags('api-v1'),
    ApiOperation({
      operationId: 'v1GetVersion',
      summary: 'Instance version, as API v1 answers it',
      deprecated: true,
      description: 'Replaced by `GET /api/v2/version`. Always public, also when PWP__API_V1__ENABLED=false turns the rest of v1 off.',
    }),
    ApiJsonResponse(200, { type: V1VersionResponse, description: 'The instance and the legacy API version.' }),
  );
