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

  /** An administrator (made at /first_run or by the CLI's users:create --admin and users:promote). */
  @Column({ type: 'boolean', default: false })
  admin!: boolean;

  /** When the person confirmed their address; null while a sign-up waits for its confirmation mail. */
  @Column({ name: 'confirmed_at', type: 'bigint', nullable: true, transformer: epochMillis })
  confirmedAt!: number | null;

  /** A new address the person asked for, waiting for its confirmation (account emails on). */
  @Column({ name: 'unconfirmed_email', type: 'varchar', length: 255, nullable: true })
  unconfirmedEmail!: string | null;

  /** Wrong passwords since the last sign-in or unlock (the lockout counts them with account emails on). */
  @Column({ name: 'failed_attempts', type: 'int', default: 0 })
  failedAttempts!: number;

  /** When the lockout locked the account; it unlocks by the mailed link or an hour later. */
  @Column({ name: 'locked_at', type: 'bigint', nullable: true, transformer: epochMillis })
  lockedAt!: number | null;

  /** A language code of the contract's list; stored for the pages' language choice. */
  @Column({ name: 'preferred_language', type: 'varchar', length: 16, nullable: true })
  preferredLanguage!: string | null;

  @Column({ name: 'last_sign_in_at', type: 'bigint', nullable: true, transformer: epochMillis })
  lastSignInAt!: number | null;

  @Column({ name: 'last_sign_in_ip', type: 'varchar', length: 45, nullable: true })
  lastSignInIp!: string | null;

  /** The TOTP secret, sealed with the master key (TwoFactorService): present during setup and while two-factor is on. */
  @Column({ name: 'otp_secret', type: 'blob', nullable: true, select: false })
  otpSecret!: Buffer | null;

  /** When two-factor authentication was turned on; null: off. */
  @Column({ name: 'otp_enabled_at', type: 'bigint', nullable: true, transformer: epochMillis })
  otpEnabledAt!: number | null;

  /** The TOTP time step of the last code accepted: only a later one is accepted (no replay). */
  @Column({ name: 'otp_last_step', type: 'bigint', nullable: true, transformer: epochMillis })
  otpLastStep!: number | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMillis })
  createdAt!: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMillis })
  updatedAt!: number;
}
