import { Clock } from '@app/common';
import { loadSettings } from '@app/config';
import type { AccountsRepository } from './accounts.repository';
import type { Lockout } from './lockout';
import type { SecondStep } from './second-step';
import type { SecurityLog } from './security-log';
import { type ProviderIdentity, SignInService } from './sign-in.service';
import { UnseenWork } from './unseen-work';
import type { UserEntity } from './user.entity';
import type { Identity, UsersRepository } from './users.repository';
import type { UsersService } from './users.service';

const ISSUER = 'https://id.example.com';
const KELVIN = '\u212A';
/** The account fields single sign-on does not read. */
const NEVER_SIGNED_IN = { admin: false, confirmedAt: 0, unconfirmedEmail: null, failedAttempts: 0, lockedAt: null, preferredLanguage: null, lastSignInAt: null, lastSignInIp: null, otpSecret: null, otpEnabledAt: null, otpLastStep: null };

/** The repository's contract in memory: emails compared exactly, as UsersRepository.findByEmail does on every engine. */
class InMemoryUsers {
  readonly rows: UserEntity[] = [];

  add(email: string, identity?: Identity): UserEntity {
    const row = { id: this.rows.length + 1, email, passwordHash: null, oidcIssuer: identity?.issuer ?? null, oidcSubject: identity?.subject ?? null, disabledAt: null, hasWebhooks: false, createdAt: 0, updatedAt: 0, ...NEVER_SIGNED_IN };
    this.rows.push(row);
    return row;
  }

  findByEmail = (email: string) => Promise.resolve(this.rows.find((row) => row.email === email) ?? null);
  findByIdentity = (identity: Identity) => Promise.resolve(this.rows.find((row) => row.oidcIssuer === identity.issuer && row.oidcSubject === identity.subject) ?? null);
  linkIdentity = (id: number, identity: Identity) => {
    const row = this.rows.find((candidate) => candidate.id === id && candidate.oidcSubject === null);
    if (row) Object.assign(row, { oidcIssuer: identity.issuer, oidcSubject: identity.subject });
    return Promise.resolve(row !== undefined);
  };
  insertUser = (user: Pick<UserEntity, 'email' | 'oidcIssuer' | 'oidcSubject'>) => Promise.resolve(this.add(user.email, { issuer: user.oidcIssuer!, subject: user.oidcSubject! }));
  transaction = <T>(work: (manager: unknown) => Promise<T>) => work({});
}

describe('SignInService.withIdentity', () => {
  const signIns = (users: InMemoryUsers, env: Record<string, string> = {}) =>
    new SignInService(
      {} as UsersService,
      users as unknown as UsersRepository,
      new Clock(),
      {} as SecondStep,
      {} as Lockout,
      { record: () => Promise.resolve() } as unknown as SecurityLog,
      {} as AccountsRepository,
      new UnseenWork(),
      loadSettings({ PWP__OIDC__ISSUER: ISSUER, PWP__OIDC__CLIENT_ID: 'pwpush', PWP__OIDC__CLIENT_SECRET: 'secret', ...env }),
    );
  const identity = (subject: string, email: string): ProviderIdentity => ({ issuer: ISSUER, subject, email, emailVerified: true });

  it('links a verified email to the account whose address it is, folding ASCII case alone', async () => {
    const users = new InMemoryUsers();
    const kate = users.add('kate@example.com');
    expect(await signIns(users).withIdentity(identity('kate-sub', 'Kate@Example.COM'))).toEqual({ user: { id: kate.id, email: 'kate@example.com', hasWebhooks: false } });
    expect(kate).toMatchObject({ oidcIssuer: ISSUER, oidcSubject: 'kate-sub' });
  });

  it('neither links nor provisions an email with a Kelvin sign for its k, nor any other beyond ASCII', async () => {
    const users = new InMemoryUsers();
    const kate = users.add('kate@example.com');
    for (const email of [`${KELVIN}ate@example.com`, `${KELVIN}ATE@EXAMPLE.COM`, 'kāte@example.com', 'kate@exämple.com', 'k\u0001ate@example.com']) {
      expect([email, await signIns(users).withIdentity(identity('someone', email))]).toEqual([email, { refused: 'non-ascii-email' }]);
    }
    expect(kate).toMatchObject({ oidcIssuer: null, oidcSubject: null });
    expect(users.rows).toHaveLength(1);
  });

  it('signs in a person with such an email whose (issuer, sub) is already an account', async () => {
    const users = new InMemoryUsers();
    const linked = users.add('kate@example.com', { issuer: ISSUER, subject: 'kelvin-sub' });
    expect(await signIns(users).withIdentity(identity('kelvin-sub', `${KELVIN}ate@example.com`))).toEqual({ user: { id: linked.id, email: 'kate@example.com', hasWebhooks: false } });
  });

  it('compares the allowed domains with the ASCII-lower-cased domain: a Kelvin sign is not a k there either', async () => {
    const users = new InMemoryUsers();
    const allowed = { PWP__OIDC__ALLOWED_EMAIL_DOMAINS: 'kelvin.example' };
    expect(await signIns(users, allowed).withIdentity(identity('a', `kate@${KELVIN}elvin.example`))).toEqual({ refused: 'domain-not-allowed' });
    expect(await signIns(users, allowed).withIdentity(identity('b', 'kate@KELVIN.example'))).toMatchObject({ user: { email: 'kate@kelvin.example' } });
    expect(users.rows.map((row) => row.email)).toEqual(['kate@kelvin.example']);
  });
});
