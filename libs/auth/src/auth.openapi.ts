import { applyDecorators } from '@nestjs/common';
import { ApiSecurity, type DocumentBuilder } from '@nestjs/swagger';

/** Names of the security schemes in the OpenAPI document. */
const BEARER_SCHEME = 'bearer';
const USER_EMAIL_SCHEME = 'userEmail';
const USER_TOKEN_SCHEME = 'userToken';

const BEARER = { [BEARER_SCHEME]: [] };
/** The legacy pair only works together, so it is one requirement naming both schemes. */
const HEADER_PAIR = { [USER_EMAIL_SCHEME]: [], [USER_TOKEN_SCHEME]: [] };

/** Declares the ways to send an API token. */
export function addSecuritySchemes(builder: DocumentBuilder): DocumentBuilder {
  return builder
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'API token',
        description:
          'An API token issued with the administration CLI (`users:create`, `users:token`). The scheme name is case-insensitive.',
      },
      BEARER_SCHEME,
    )
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'X-User-Email', description: 'Legacy pair, with X-User-Token: the email of the token’s user.' },
      USER_EMAIL_SCHEME,
    )
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'X-User-Token', description: 'Legacy pair, with X-User-Email: the API token.' },
      USER_TOKEN_SCHEME,
    );
}

/** A valid token is required. */
export const ApiRequiredAuthentication = () => applyDecorators(ApiSecurity(BEARER), ApiSecurity(HEADER_PAIR));

/**
 * Anonymous callers are welcome (unless PWP__ALLOW_ANONYMOUS=false); a token that is sent must
 * be valid. The empty requirement is what says "no credential needed".
 */
export const ApiOptionalAuthentication = () => applyDecorators(ApiSecurity({}), ApiSecurity(BEARER), ApiSecurity(HEADER_PAIR));

/** No credential is needed nor checked. */
export const ApiNoAuthentication = () => ApiSecurity({});
