import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { PushEntity } from './push.entity';

export type NewPush = Omit<PushEntity, 'id' | 'viewCount' | 'expired' | 'deleted' | 'expiredOn' | 'auditEntryCount'>;

/** What an expiry destroys: the secret and the means to check its passphrase. */
const DESTROYED = { payload: null, passphraseHash: null } as const;
const oneMoreAuditEntry = () => 'audit_entry_count + 1';
const URL_TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Every query on pushes. State changes are single conditional UPDATEs whose affected-row count
 * says whether this caller won, so they hold with any number of replicas and need no
 * transaction (SQLite's single TypeORM connection cannot interleave transactions safely).
 * Operations that are always audited reserve their audit entry in the same statement.
 */
@Injectable()
export class PushesRepository {
  constructor(@InjectRepository(PushEntity) private readonly pushes: Repository<PushEntity>) {}

  /** Inserts a push together with the count of its creation audit entry. */
  async insert(push: NewPush): Promise<PushEntity> {
    const row = this.pushes.create({ ...push, viewCount: 0, expired: false, deleted: false, expiredOn: null, auditEntryCount: 1 });
    return this.pushes.save(row);
  }

  /** Only well-formed tokens reach the database: URL-safe base64 characters, nothing else. */
  async findByToken(urlToken: string): Promise<PushEntity | null> {
    return URL_TOKEN.test(urlToken) ? this.pushes.findOneBy({ urlToken }) : null;
  }

  /**
   * Claims the next view of `seen` by compare-and-set on its view count. Succeeds only if nobody
   * changed the push since it was read, it is active and its window is open at `now`. The claim
   * that uses the last view expires the push and destroys the secret in the same statement.
   */
  async claimView(seen: PushEntity, now: number): Promise<boolean> {
    const viewCount = seen.viewCount + 1;
    const last = viewCount >= seen.expireAfterViews;
    const counted = { viewCount, updatedAt: now, auditEntryCount: oneMoreAuditEntry };
    const result = await this.pushes
      .createQueryBuilder()
      .update()
      .set(last ? { ...counted, expired: true, expiredOn: now, ...DESTROYED } : counted)
      .where('id = :id AND view_count = :seen AND expired = 0 AND expires_at > :now', { id: seen.id, seen: seen.viewCount, now })
      .execute();
    return result.affected === 1;
  }

  /**
   * Expires an active push; false when it was already expired (someone else got there first).
   * A deletion is audited, so it also counts its audit entry.
   */
  async expire(id: number, now: number, deleted: boolean): Promise<boolean> {
    const result = await this.pushes
      .createQueryBuilder()
      .update()
      .set({ expired: true, deleted, expiredOn: now, updatedAt: now, ...DESTROYED, ...(deleted ? { auditEntryCount: oneMoreAuditEntry } : {}) })
      .where('id = :id AND expired = 0', { id })
      .execute();
    return result.affected === 1;
  }

  /** Counts one more audit entry; with `cap`, only while the push has fewer entries than that. */
  async countAuditEntry(id: number, cap?: number): Promise<boolean> {
    const query = this.pushes.createQueryBuilder().update().set({ auditEntryCount: oneMoreAuditEntry }).where('id = :id', { id });
    if (cap !== undefined) query.andWhere('audit_entry_count < :cap', { cap });
    return (await query.execute()).affected === 1;
  }

  /** One page of the owner's pushes, newest first; one row more than asked tells whether a next page exists. */
  findOwned(userId: number, expired: boolean, offset: number, limit: number): Promise<PushEntity[]> {
    return this.pushes
      .createQueryBuilder('p')
      .where('p.user_id = :userId AND p.expired = :expired', { userId, expired: expired ? 1 : 0 })
      .orderBy('p.id', 'DESC')
      .offset(offset)
      .limit(limit)
      .getMany();
  }

  /** Expires the owner's pushes whose day window has elapsed, so lists agree with retrievals; returns how many. */
  async expireElapsedOwnedBy(userId: number, now: number): Promise<number> {
    const result = await this.pushes
      .createQueryBuilder()
      .update()
      .set({ expired: true, expiredOn: now, updatedAt: now, ...DESTROYED })
      .where('user_id = :userId AND expired = 0 AND expires_at <= :now', { userId, now })
      .execute();
    return result.affected ?? 0;
  }

  /**
   * Expires up to `batch` active pushes whose day window has elapsed at `now`; returns how many
   * this call expired. The ids come from the (expired, expires_at) index; the UPDATE re-checks
   * the condition, so replicas sweeping at the same moment never expire a push twice.
   */
  async expireElapsedBatch(now: number, batch: number): Promise<number> {
    const ids = await this.idsWhere('expired = 0 AND expires_at <= :now', { now }, 'expires_at', batch);
    if (ids.length === 0) return 0;
    const result = await this.pushes
      .createQueryBuilder()
      .update()
      .set({ expired: true, expiredOn: now, updatedAt: now, ...DESTROYED })
      .where('id IN (:...ids) AND expired = 0 AND expires_at <= :now', { ids, now })
      .execute();
    return result.affected ?? 0;
  }

  /** Deletes up to `batch` pushes that expired before `cutoff`; their audit entries go with them (FK cascade). */
  async purgeExpiredBatch(cutoff: number, batch: number): Promise<number> {
    const ids = await this.idsWhere('expired = 1 AND expired_on < :cutoff', { cutoff }, 'expired_on', batch);
    if (ids.length === 0) return 0;
    const result = await this.pushes.createQueryBuilder().delete().where('id IN (:...ids) AND expired = 1', { ids }).execute();
    return result.affected ?? 0;
  }

  private async idsWhere(condition: string, parameters: Record<string, number>, orderBy: string, limit: number): Promise<number[]> {
    const rows: { id: number }[] = await this.pushes
      .createQueryBuilder('p')
      .select('p.id', 'id')
      .where(condition, parameters)
      .orderBy(orderBy)
      .limit(limit)
      .getRawMany();
    return rows.map((row) => Number(row.id));
  }

  /** Expires every active push of the owner (the owner's account is being deleted). */
  async expireAllOwnedBy(userId: number, now: number): Promise<number> {
    const result = await this.pushes
      .createQueryBuilder()
      .update()
      .set({ expired: true, expiredOn: now, updatedAt: now, ...DESTROYED })
      .where('user_id = :userId AND expired = 0', { userId })
      .execute();
    return result.affected ?? 0;
  }
}
