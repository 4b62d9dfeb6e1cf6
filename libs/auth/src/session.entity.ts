import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { epochMillis } from '@app/database';

/** A signed-in browser: the pages' session cookie names it by a random token, stored only as its hash. */
@Entity({ name: 'sessions' })
@Index('ux_sessions_token_hash', ['tokenHash'], { unique: true })
@Index('ix_sessions_user_id_expires_at', ['userId', 'expiresAt'])
export class SessionEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash!: string;

  @Column({ name: 'user_id', type: 'int' })
  @ForeignKey('users', { name: 'fk_sessions_user', onDelete: 'CASCADE' })
  userId!: number;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;

  @Column({ name: 'expires_at', type: 'bigint', transformer: epochMillis })
  expiresAt!: number;

  /** "Remember me": the session lasts a week from sign-in, without the inactivity timeout. */
  @Column({ type: 'boolean', default: false })
  remember!: boolean;

  /**
   * For a single sign-on, the provider's ID token, encrypted (FieldCipher): the hint its logout
   * endpoint asks for at sign-out. Null for a password sign-in.
   */
  @Column({ name: 'id_token', type: 'blob', nullable: true })
  idToken!: Buffer | null;
}
