import type { BusyEndpoint } from './deliveries.repository';

/**
 * The busy endpoints whose first delivery is due, in the order to serve them: users in turn (the
 * one waiting longest first), and each user's endpoints in turn (theirs waiting longest first).
 * So a user with ten endpoints and thousands of deliveries comes up no more often than a user
 * with one, and the caps (DeliverySlots) bound how much of the worker either may hold.
 */
export function endpointsInTurn(busy: BusyEndpoint[], now: number): BusyEndpoint[] {
  const byUser = new Map<number, BusyEndpoint[]>();
  for (const endpoint of busy.filter(({ head }) => head <= now).sort((a, b) => a.head - b.head)) {
    const ofUser = byUser.get(endpoint.userId);
    if (ofUser) ofUser.push(endpoint);
    else byUser.set(endpoint.userId, [endpoint]);
  }
  // A Map keeps the order users were first met in: the one with the oldest due delivery first.
  return inTurn([...byUser.values()]);
}

/** Every list's first item, then every list's second, and so on. */
export function inTurn<T>(lists: T[][]): T[] {
  const longest = Math.max(0, ...lists.map((list) => list.length));
  const result: T[] = [];
  for (let round = 0; round < longest; round++) {
    for (const list of lists) if (round < list.length) result.push(list[round]);
  }
  return result;
}
