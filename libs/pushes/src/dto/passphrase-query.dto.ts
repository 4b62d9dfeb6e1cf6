import { IsOptional, IsString } from 'class-validator';

export class PassphraseQuery {
  @IsOptional()
  @IsString({ message: 'Invalid passphrase parameter' })
  passphrase?: string;
}
