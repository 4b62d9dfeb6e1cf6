import { type AuthenticatedUser, checkOwner, type Owned } from '@app/auth';

const NOT_YOURS = "That push doesn't belong to you.";

/** Refuses (403) a caller who does not own the push: its audit log, its owner's view, its link mails. */
export function checkPushOwner(push: Owned, caller: AuthenticatedUser | undefined): void {
  checkOwner(push, caller, NOT_YOURS);
}
