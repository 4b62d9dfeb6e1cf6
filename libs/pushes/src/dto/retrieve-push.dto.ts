import { IsOptional, IsString } from 'class-validator';

export class RetrieveQuery {
  @IsOptional()
  @IsString({ message: 'Invalid passphrase parameter' })
  passphrase?: string;
}
