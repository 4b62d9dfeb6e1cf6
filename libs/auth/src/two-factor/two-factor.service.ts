import { Injectable } from '@nestjs/common';
import { Clock, MINUTE_MS } from '@app/common';
import { InjectSettings, type Settings } from '@app/config';
import { FieldCipher, randomToken } from '@app/crypto';
import type { AuthenticatedUser } from '../authenticated-user';
import { AccountError } from '../account.errors';
import { type SecurityEventDetail, type SecurityEventInput, type SecurityEventKind, SecurityLog } from '../security-log';
import { SignInService } from '../sign-in.service';
import { hashToken, UsersService } from '../users.service';
import { newRecoveryCodes, recoveryCode, recoveryCodeHash } from './recovery-codes';
import { newTotpSecret, provisioningUri, totpStep } from './totp';
import { type PendingChallenge, type TwoFactorRecord, TwoFactorRepository } from './two-factor.repository';

/** A sign-in's second step: how many codes it may try, and how long it waits for one. */
export const TWO_FACTOR_LIMITS = { codesPerSignIn: 5, challengeLifetimeMs: 5 * MINUTE_MS } as const;

const RECOVERY_KEY_PURPOSE = 'recovery-codes';
/** Sealed with the person's id in its context: a secret copied onto another account does not open. */
const secretContext = (userId: number): string => `otp-secret:${userId}`;

/** The request's client, as the security log keeps it. */
export interface TwoFactorClient {
  ip: string;
  userAgent: string;
}

/** What the account page shows of two-factor. */
export interface TwoFactorStatus {
  /** Only people with a password have a sign-in it protects; single sign-on follows the provider's policy. */
  available: boolean;
  on: boolean;
  /** PWP__REQUIRE_MFA: it must be on, and cannot be turned off. */
  required: boolean;
  recoveryCodesLeft: number;
}

/** What proves the person at the keyboard is the account's owner before two-factor changes: their password, or a code. */
export interface Proof {
  password?: string;
  code?: string;
}

export type SetupKey = { secret: string; uri: string };
/** How a code was accepted. */
export type CodeKind = 'totp' | 'recovery_code';
export type ChallengeAnswer = { user: AuthenticatedUser; remember: boolean } | { wrong: number } | { exhausted: true } | { expired: true };

/**
 * Two-factor authentication (RFC 6238 TOTP) for people who sign in with a password: setup (a new
 * secret, sealed with the master key; 16 recovery codes shown once and kept as keyed hashes; on
 * once a code proves the app has the secret), the sign-in's second step (a challenge row per
 * sign-in, at most TWO_FACTOR_LIMITS.codesPerSignIn codes), turning it off, and PWP__REQUIRE_MFA.
 * A code is accepted only for a time step later than the last one accepted and a recovery code is
 * deleted as it is used, each in one conditional statement, so neither works twice even when two
 * requests race. Every change and every wrong code goes to the person's security log; no code or
 * secret ever does.
 */
@Injectable()
export class TwoFactorService {
  constructor(
    private readonly repository: TwoFactorRepository,
    private readonly users: UsersService,
    private readonly signIns: SignInService,
    private readonly cipher: FieldCipher,
    private readonly log: SecurityLog,
    private readonly clock: Clock,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  isOn(user: Pick<AuthenticatedUser, 'id'>): Promise<boolean> {
    return this.repository.isOn(user.id);
  }

  async status(user: AuthenticatedUser): Promise<TwoFactorStatus> {
    const record = await this.record(user);
    const on = record.enabledAt !== null;
    return {
      available: record.hasPassword || on,
      on,
      required: this.settings.accounts.requireMfa && record.hasPassword,
      recoveryCodesLeft: on ? await this.repository.countRecoveryCodes(user.id) : 0,
    };
  }

  /** PWP__REQUIRE_MFA and the person signs in with a password without two-factor: pages send them to its setup, their tokens get 403. */
  async mustSetUp(user: AuthenticatedUser): Promise<boolean> {
    if (!this.settings.accounts.requireMfa) return false;
    const record = await this.repository.record(user.id);
    return record !== null && record.hasPassword && record.enabledAt === null;
  }

  /**
   * Starts (or restarts) a setup: a new set of recovery codes, to be shown once, and a secret
   * unless one is waiting already (an app that scanned it stays right). Null when two-factor is
   * on already or the person has no password.
   */
  async startSetup(user: AuthenticatedUser): Promise<string[] | null> {
    const record = await this.record(user);
    if (record.enabledAt !== null || !record.hasPassword) return null;
    const secret = record.secret ?? this.cipher.encrypt(newTotpSecret(), secretContext(user.id));
    const codes = newRecoveryCodes();
    return (await this.repository.prepare(user.id, secret, this.hashes(codes), this.clock.now())) ? codes : null;
  }

  /** The waiting secret, for the QR code and for typing; null unless a setup is under way. */
  async setupKey(user: AuthenticatedUser): Promise<SetupKey | null> {
    const record = await this.record(user);
    if (record.enabledAt !== null || record.secret === null) return null;
    const secret = this.openSecret(record);
    return { secret, uri: provisioningUri(secret, this.settings.brand.title, record.email) };
  }

  /** Turns two-factor on when `code` is right for the waiting secret; whether it did. */
  async enable(user: AuthenticatedUser, code: string, client: TwoFactorClient): Promise<boolean> {
    const record = await this.record(user);
    if (record.enabledAt !== null || record.secret === null) return false;
    const step = totpStep(this.openSecret(record), code.replace(/\s/g, ''), this.clock.now());
    if (step === null) {
      await this.log.record(this.event(record, 'two_factor_failed', client, { during: 'setup' }));
      return false;
    }
    return this.repository.enable(user.id, step, this.clock.now(), this.log.statement(this.event(record, 'two_factor_enabled', client)));
  }

  /**
   * Turns two-factor off after a proof (the password or a code); refused under PWP__REQUIRE_MFA.
   * A wrong proof is logged; the caller counts it toward the sign-in limits.
   */
  async disable(user: AuthenticatedUser, proof: Proof, client: TwoFactorClient): Promise<'disabled' | 'required' | 'wrong-proof' | 'off'> {
    const record = await this.record(user);
    if (record.enabledAt === null) return 'off';
    if (this.settings.accounts.requireMfa) return 'required';
    const proven = await this.prove(record, proof, client, 'disable');
    if (proven === null) return 'wrong-proof';
    await this.repository.transaction(async (manager) => {
      if (await this.repository.clear(user.id, this.clock.now(), manager))
        await this.log.record(this.event(record, 'two_factor_disabled', client, { by: 'self', proof: proven }), manager);
    });
    return 'disabled';
  }

  /** A new set of recovery codes (the old ones stop working) after a proof; the codes, shown once. */
  async regenerateRecoveryCodes(user: AuthenticatedUser, proof: Proof, client: TwoFactorClient): Promise<string[] | 'wrong-proof' | 'off'> {
    const record = await this.record(user);
    if (record.enabledAt === null) return 'off';
    const proven = await this.prove(record, proof, client, 'recovery_codes');
    if (proven === null) return 'wrong-proof';
    const codes = newRecoveryCodes();
    const replaced = await this.repository.transaction(async (manager) => {
      if (!(await this.repository.replaceRecoveryCodes(user.id, this.hashes(codes), this.clock.now(), manager))) return false;
      await this.log.record(this.event(record, 'recovery_codes_generated', client, { proof: proven }), manager);
      return true;
    });
    return replaced ? codes : 'off';
  }

  /**
   * An administrator turns a person's two-factor off (the CLI's users:reset-2fa, or the
   * administration's): for someone who lost both their app and their codes. Their sessions end
   * too: a lost phone may still hold one, and they sign in again anyway (with their password alone).
   */
  async reset(email: string, by: 'cli' | 'admin', administrator?: { email: string; client: TwoFactorClient }): Promise<{ email: string; was_on: boolean }> {
    const user = await this.users.find(email);
    const wasOn = await this.repository.transaction(async (manager) => {
      const on = await this.repository.clear(user.id, this.clock.now(), manager);
      await this.repository.endSessions(user.id, manager);
      const detail: SecurityEventDetail = administrator ? { by, admin: administrator.email } : { by };
      if (on) await this.log.record({ userId: user.id, email: user.email, kind: 'two_factor_disabled', detail, client: administrator?.client }, manager);
      return on;
    });
    return { email: user.email, was_on: wasOn };
  }

  /** A sign-in that passed the password now waits for a code: the token for the browser's cookie. */
  async challenge(user: AuthenticatedUser, remember: boolean): Promise<string> {
    const token = randomToken(32);
    const now = this.clock.now();
    await this.repository.insertChallenge({
      userId: user.id,
      tokenHash: hashToken(token),
      remember,
      createdAt: now,
      expiresAt: now + TWO_FACTOR_LIMITS.challengeLifetimeMs,
    });
    return token;
  }

  /** The sign-in the browser's token names, while it waits (not lapsed, the account not disabled). */
  pending(token: string): Promise<PendingChallenge | null> {
    return /^[\w-]{43}$/.test(token) ? this.repository.pendingChallenge(hashToken(token), this.clock.now()) : Promise.resolve(null);
  }

  /**
   * A code (or a recovery code) for a waiting sign-in. Each try is counted first, atomically, so
   * that no more than TWO_FACTOR_LIMITS.codesPerSignIn are tried however many arrive at once; the
   * right code ends the challenge (once: a second request with it finds none).
   */
  async answer(pending: PendingChallenge, typed: string, client: TwoFactorClient): Promise<ChallengeAnswer> {
    if (!(await this.repository.claimAttempt(pending.id, TWO_FACTOR_LIMITS.codesPerSignIn, this.clock.now()))) {
      // Its codes were used up (by requests racing this one), or it lapsed a moment ago.
      await this.repository.deleteChallenge(pending.id);
      return { exhausted: true };
    }
    const record = await this.repository.record(pending.user.id);
    const accepted = record?.enabledAt != null ? await this.accept(record, typed, client) : null;
    if (accepted === null) {
      // Logged as two_factor_failed, and counted toward the account's lockout as a wrong password is.
      await this.signIns.failedSecondStep(pending.user, client);
      const left = TWO_FACTOR_LIMITS.codesPerSignIn - pending.attempts - 1;
      if (left > 0) return { wrong: left };
      await this.repository.deleteChallenge(pending.id);
      return { exhausted: true };
    }
    if (!(await this.repository.deleteChallenge(pending.id))) return { expired: true };
    return { user: { id: record!.id, email: record!.email, hasWebhooks: record!.hasWebhooks }, remember: pending.remember };
  }

  /** The code if it is right now, used up: a TOTP code's step recorded, a recovery code deleted (and logged). */
  private async accept(record: TwoFactorRecord, typed: string, client: TwoFactorClient): Promise<CodeKind | null> {
    const compact = typed.replace(/[\s-]/g, '');
    if (/^\d{6}$/.test(compact)) {
      const step = totpStep(this.openSecret(record), compact, this.clock.now());
      return step !== null && (await this.repository.acceptStep(record.id, step)) ? 'totp' : null;
    }
    const code = recoveryCode(compact);
    if (code === null) return null;
    const used = this.log.statement(this.event(record, 'recovery_code_used', client));
    return (await this.repository.useRecoveryCode(record.id, this.hashes([code], true), used)) ? 'recovery_code' : null;
  }

  /** Whether `proof` proves the person: their password, or a code (used up as at sign-in). A wrong one is logged. */
  private async prove(
    record: TwoFactorRecord,
    proof: Proof,
    client: TwoFactorClient,
    action: string,
  ): Promise<'password' | CodeKind | null> {
    let proven: 'password' | CodeKind | null = null;
    if (proof.password) proven = (await this.users.checkPassword(record.email, proof.password))?.id === record.id ? 'password' : null;
    else if (proof.code) proven = await this.accept(record, proof.code, client);
    if (proven === null)
      await this.log.record(
        this.event(record, 'two_factor_failed', client, { during: action, proof: proof.password ? 'password' : 'code' }),
      );
    return proven;
  }

  private async record(user: Pick<AuthenticatedUser, 'id'>): Promise<TwoFactorRecord> {
    const record = await this.repository.record(user.id);
    if (!record) throw new AccountError('No such user.');
    return record;
  }

  private openSecret(record: TwoFactorRecord): string {
    return this.cipher.decrypt(record.secret!, secretContext(record.id));
  }

  /** The codes' hashes under the current key; with `everyKey`, each code's hash under every key of the ring (to find one written before a rotation). */
  private hashes(codes: string[], everyKey = false): string[] {
    const keys = everyKey ? this.cipher.deriveKeys(RECOVERY_KEY_PURPOSE) : [this.cipher.deriveKey(RECOVERY_KEY_PURPOSE)];
    return codes.flatMap((code) => keys.map((key) => recoveryCodeHash(code, key)));
  }

  private event(
    record: TwoFactorRecord,
    kind: SecurityEventKind,
    client: TwoFactorClient,
    detail?: SecurityEventDetail,
  ): SecurityEventInput {
    return { userId: record.id, email: record.email, kind, client: { ip: client.ip, userAgent: client.userAgent }, detail };
  }
}
