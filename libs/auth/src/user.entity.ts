import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { epochMillis } from '@app/database';

@Entity({ name: 'users' })
@Index('ux_users_email', ['email'], { unique: true })
@Index('ux_users_oidc_issuer_oidc_subject', ['oidcIssuer', 'oidcSubject'], { unique: true })
export class UserEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  /** Stored with its ASCII letters lower-cased (nothing else folded), so look-ups ignore ASCII case on every engine. */
  @Column({ type: 'varchar', length: 255 })
  email!: string;

  @Column({ name: 'password_hash', type: 'varchar', length: 255, nullable: true })
  passwordHash!: string | null;

  /** The OpenID Provider that vouches for this user, and its `sub` for them: together, who they are by single sign-on. */
  @Column({ name: 'oidc_issuer', type: 'varchar', length: 255, nullable: true })
  oidcIssuer!: string | null;

  @Column({ name: 'oidc_subject', type: 'varchar', length: 255, nullable: true })
  oidcSubject!: string | null;

  /** When an administrator disabled the user (users:disable); a disabled user cannot sign in nor use a token. */
  @Column({ name: 'disabled_at', type: 'bigint', nullable: true, transformer: epochMillis })
  disabledAt!: number | null;

  /** Whether the user has any webhook or mail endpoint: events on their pushes are recorded only then. */
  @Column({ name: 'has_webhooks', type: 'boolean', default: false })
  hasWebhooks!: boolean;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMillis })
  updatedAt!: number;
}
