import { Injectable } from '@nestjs/common';
import { type ClientInfo, NotFoundError } from '@app/common';
import { PushExpiry } from './push-expiry';
import { type PushMetadata, PushesRepository } from './pushes.repository';

/** Pushes a page of the administration lists at once. */
export const DIRECTORY_PAGE_SIZE = 25;

export interface PushDirectoryPage {
  pushes: PushMetadata[];
  /** The `before` of the next (older) page; absent on the last. */
  next?: number;
}

/**
 * Every push as the administration sees it: counts, metadata newest first (keyset by id), and
 * "Expire". Never a payload, passphrase, name, note or full token: what it reads has none of them,
 * and pushes are named by id, so nothing here can open a secret.
 */
@Injectable()
export class PushDirectory {
  constructor(
    private readonly repository: PushesRepository,
    private readonly expiry: PushExpiry,
  ) {}

  counts(): Promise<{ total: number; active: number }> {
    return this.repository.counts();
  }

  async page(before?: number): Promise<PushDirectoryPage> {
    const rows = await this.repository.findMetadataPage(before, DIRECTORY_PAGE_SIZE + 1);
    const pushes = rows.slice(0, DIRECTORY_PAGE_SIZE);
    return rows.length > DIRECTORY_PAGE_SIZE ? { pushes, next: pushes[pushes.length - 1].id } : { pushes };
  }

  /** Expires the push with this id for an administrator (audited as `expire` with their address); 404 when there is none. */
  async expire(id: number, administrator: string, client: ClientInfo): Promise<boolean> {
    const push = await this.repository.findById(id);
    if (!push) throw new NotFoundError();
    return this.expiry.expireByAdministrator(push, administrator, client);
  }

  /** Deletes a person's pushes before their account goes (expired first: secrets and files destroyed). */
  deleteAllOwnedBy(userId: number): Promise<number> {
    return this.expiry.deleteAllOwnedBy(userId);
  }
}
