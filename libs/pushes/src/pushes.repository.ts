import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { PushEntity } from './push.entity';

export type NewPush = Omit<PushEntity, 'id' | 'viewCount' | 'expired' | 'deleted' | 'expiredOn'>;

/** What an expiry destroys: the secret and the means to check its passphrase. */
const DESTROYED = { payload: null, passphraseHash: null } as const;

/**
 * Every query on pushes. State changes are single conditional UPDATEs whose affected-row count
 * says whether this caller won, so they hold with any number of replicas and need no
 * transaction (SQLite's single TypeORM connection cannot interleave transactions safely).
 */
@Injectable()
export class PushesRepository {
  constructor(@InjectRepository(PushEntity) private readonly pushes: Repository<PushEntity>) {}

  async insert(push: NewPush): Promise<PushEntity> {
    const row = this.pushes.create({ ...push, viewCount: 0, expired: false, deleted: false, expiredOn: null });
    return this.pushes.save(row);
  }

  findByToken(urlToken: string): Promise<PushEntity | null> {
    return this.pushes.findOneBy({ urlToken });
  }

  /**
   * Claims the next view of `seen` by compare-and-set on its view count. Succeeds only if nobody
   * changed the push since it was read, it is active and its window is open at `now`. The claim
   * that uses the last view expires the push and destroys the secret in the same statement.
   */
  async claimView(seen: PushEntity, now: number): Promise<boolean> {
    const viewCount = seen.viewCount + 1;
    const last = viewCount >= seen.expireAfterViews;
    const result = await this.pushes
      .createQueryBuilder()
      .update()
      .set(last ? { viewCount, expired: true, expiredOn: now, updatedAt: now, ...DESTROYED } : { viewCount, updatedAt: now })
      .where('id = :id AND view_count = :seen AND expired = 0 AND expires_at > :now', { id: seen.id, seen: seen.viewCount, now })
      .execute();
    return result.affected === 1;
  }

  /** Expires an active push; false when it was already expired (someone else got there first). */
  async expire(id: number, now: number, deleted: boolean): Promise<boolean> {
    const result = await this.pushes
      .createQueryBuilder()
      .update()
      .set({ expired: true, deleted, expiredOn: now, updatedAt: now, ...DESTROYED })
      .where('id = :id AND expired = 0', { id })
      .execute();
    return result.affected === 1;
  }
}
