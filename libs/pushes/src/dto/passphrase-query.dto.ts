import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

export class PassphraseQuery {
  @ApiPropertyOptional({
    type: String,
    description: "The push's passphrase. Prefer the X-Passphrase header, which keeps it out of URLs and logs; given twice, or as a list or object (`passphrase[]=x`, `passphrase[a]=x`), is a 400.",
  })
  @IsOptional()
  @IsString({ message: 'Invalid passphrase parameter' })
  passphrase?: string;
}

/** The passphrase from the X-Passphrase header, else from the query string. */
export const passphraseOf = (header: string | undefined, query: PassphraseQuery): string | undefined => header ?? query.passphrase;
