import { Global, Module } from '@nestjs/common';
import { SETTINGS, Settings } from '@app/config';
import { FieldCipher } from './field-cipher';
import { resolveMasterKey } from './master-key';
import { PassphraseHasher } from './passphrase-hasher';

@Global()
@Module({
  providers: [
    PassphraseHasher,
    {
      provide: FieldCipher,
      inject: [SETTINGS],
      useFactory: (settings: Settings) => new FieldCipher(resolveMasterKey(settings), settings.previousMasterKeys),
    },
  ],
  exports: [FieldCipher, PassphraseHasher],
})
export class CryptoModule {}
