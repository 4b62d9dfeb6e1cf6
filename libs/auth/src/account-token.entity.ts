import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { epochMillis } from '@app/database';

/** What a mailed link lets its holder do, once. */
export type AccountTokenPurpose = 'confirmation' | 'reset' | 'unlock';

/** A single-use link mailed to a person: only the SHA-256 of its random token is stored. */
@Entity({ name: 'account_tokens' })
@Index('ux_account_tokens_token_hash', ['tokenHash'], { unique: true })
@Index('ix_account_tokens_user_id_purpose', ['userId', 'purpose'])
export class AccountTokenEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'user_id', type: 'int' })
  @ForeignKey('users', { name: 'fk_account_tokens_user', onDelete: 'CASCADE' })
  userId!: number;

  @Column({ type: 'varchar', length: 16 })
  purpose!: AccountTokenPurpose;

  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash!: string;

  /** For a confirmation: the address it confirms (a new one, on an email change). */
  @Column({ type: 'varchar', length: 255, nullable: true })
  email!: string | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;

  @Column({ name: 'expires_at', type: 'bigint', transformer: epochMillis })
  expiresAt!: number;
}
