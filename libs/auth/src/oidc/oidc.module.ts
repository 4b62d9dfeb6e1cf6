import { Module } from '@nestjs/common';
import { OidcClient } from './oidc-client';

/**
 * The OpenID Connect client, for the app's pages only: the CLI, which imports AuthModule, never
 * discovers a provider.
 */
@Module({
  providers: [OidcClient],
  exports: [OidcClient],
})
export class OidcModule {}
