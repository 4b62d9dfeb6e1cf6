import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { epochMillis } from '@app/database';

@Entity({ name: 'api_tokens' })
export class ApiTokenEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'user_id', type: 'int' })
  userId!: number;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  /** SHA-256 of the token; the token itself is shown once and never stored. */
  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash!: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;
}
