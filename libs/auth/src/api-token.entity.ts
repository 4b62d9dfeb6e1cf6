import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { epochMillis } from '@app/database';

@Entity({ name: 'api_tokens' })
@Index('ux_api_tokens_token_hash', ['tokenHash'], { unique: true })
@Index('ux_api_tokens_user_id_name', ['userId', 'name'], { unique: true })
export class ApiTokenEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'user_id', type: 'int' })
  @ForeignKey('users', { name: 'fk_api_tokens_user', onDelete: 'CASCADE' })
  userId!: number;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  /** SHA-256 of the token; the token itself is shown once and never stored. */
  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash!: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;

  /** When the token stops working; null: never. */
  @Column({ name: 'expires_at', type: 'bigint', nullable: true, transformer: epochMillis })
  expiresAt!: number | null;
}
