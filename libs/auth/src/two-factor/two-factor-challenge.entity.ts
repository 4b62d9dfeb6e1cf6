import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { epochMillis } from '@app/database';

/**
 * A sign-in that passed the password and waits for its code: the browser holds a random token in
 * a cookie, the row its SHA-256, so the count of wrong codes cannot be reset by replaying a cookie.
 */
@Entity({ name: 'two_factor_challenges' })
@Index('ux_two_factor_challenges_token_hash', ['tokenHash'], { unique: true })
@Index('ix_two_factor_challenges_user_id', ['userId'])
export class TwoFactorChallengeEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'user_id', type: 'int' })
  @ForeignKey('users', { name: 'fk_two_factor_challenges_user', onDelete: 'CASCADE' })
  userId!: number;

  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash!: string;

  /** Codes tried so far (at most TWO_FACTOR_LIMITS.codesPerSignIn). */
  @Column({ type: 'int', default: 0 })
  attempts!: number;

  @Column({ type: 'boolean', default: false })
  remember!: boolean;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;

  @Column({ name: 'expires_at', type: 'bigint', transformer: epochMillis })
  expiresAt!: number;
}
