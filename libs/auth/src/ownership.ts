import { ForbiddenError } from '@app/common';
import type { AuthenticatedUser } from './authenticated-user';

/** What a person can own (a push, and later a secret request): `userId` is null for what was made anonymously. */
export interface Owned {
  userId: number | null;
}

/** Whether the caller owns it: what was made anonymously has no owner, and an anonymous caller owns nothing. */
export function isOwner(owned: Owned, caller: AuthenticatedUser | undefined): boolean {
  return caller !== undefined && owned.userId === caller.id;
}

/** Refuses a caller who does not own it: 403 with `notYours` ("That push doesn't belong to you."). */
export function checkOwner(owned: Owned, caller: AuthenticatedUser | undefined, notYours: string): void {
  if (!isOwner(owned, caller)) throw new ForbiddenError(notYours);
}
