import type { Lane } from './deliveries.repository';

/** How many attempts of a lane may be in flight at once in this process: in all, to one endpoint, for one user. */
export interface LaneCaps {
  total: number;
  perEndpoint: number;
  perUser: number;
}

/** What an attempt is counted against. */
export interface SlotHolder {
  userId: number;
  webhook: { id: number } | null;
}

/**
 * The attempts in flight in this process, by lane, endpoint and user, against the caps. Counts
 * live in memory: the caps bound one process, so with N replicas an endpoint or a user may have
 * N times as many attempts in flight (the README says which limits hold across replicas).
 */
export class DeliverySlots {
  private readonly inLane = new Map<Lane, number>();
  private readonly byEndpoint = new Map<number, number>();
  private readonly byUser = new Map<string, number>();

  constructor(private readonly caps: Record<Lane, LaneCaps>) {}

  capsOf(lane: Lane): LaneCaps {
    return this.caps[lane];
  }

  inFlight(lane: Lane): number {
    return this.inLane.get(lane) ?? 0;
  }

  free(lane: Lane): number {
    return this.caps[lane].total - this.inFlight(lane);
  }

  /** Whether one more attempt for this holder fits every cap of the lane. */
  fits(lane: Lane, holder: SlotHolder): boolean {
    const caps = this.caps[lane];
    if (this.free(lane) <= 0) return false;
    if ((this.byUser.get(userKey(lane, holder)) ?? 0) >= caps.perUser) return false;
    return holder.webhook === null || (this.byEndpoint.get(holder.webhook.id) ?? 0) < caps.perEndpoint;
  }

  take(lane: Lane, holder: SlotHolder): void {
    this.add(lane, holder, 1);
  }

  release(lane: Lane, holder: SlotHolder): void {
    this.add(lane, holder, -1);
  }

  private add(lane: Lane, holder: SlotHolder, delta: number): void {
    bump(this.inLane, lane, delta);
    bump(this.byUser, userKey(lane, holder), delta);
    if (holder.webhook !== null) bump(this.byEndpoint, holder.webhook.id, delta);
  }
}

/** A user's mails and webhooks are counted apart: the lanes do not share slots. */
const userKey = (lane: Lane, holder: SlotHolder) => `${lane}:${holder.userId}`;

/** Adds to a count, dropping it at zero so the maps hold only what is in flight. */
function bump<K>(counts: Map<K, number>, key: K, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next === 0) counts.delete(key);
  else counts.set(key, next);
}
