import { Injectable } from '@nestjs/common';
import { Clock } from '@app/common';

const WINDOW_MS = 60_000;
const PRUNE_ABOVE = 10_000;

/**
 * Failed passphrase attempts per push in a one-minute window. Kept in process memory for now
 * (per replica); the interface is what a shared store will implement.
 */
@Injectable()
export class PassphraseAttempts {
  private readonly windows = new Map<string, { failures: number; resetsAt: number }>();

  constructor(private readonly clock: Clock) {}

  /** Seconds until attempts are allowed again, or 0 when they are allowed now. */
  async blockedFor(key: string, limit: number): Promise<number> {
    const window = this.current(key);
    return window && window.failures >= limit ? Math.ceil((window.resetsAt - this.clock.now()) / 1000) : 0;
  }

  async recordFailure(key: string): Promise<void> {
    const window = this.current(key) ?? { failures: 0, resetsAt: this.clock.now() + WINDOW_MS };
    window.failures += 1;
    this.windows.set(key, window);
    if (this.windows.size > PRUNE_ABOVE) this.prune();
  }

  private prune(): void {
    const now = this.clock.now();
    for (const [key, window] of this.windows) if (window.resetsAt <= now) this.windows.delete(key);
  }

  private current(key: string): { failures: number; resetsAt: number } | undefined {
    const window = this.windows.get(key);
    if (window && window.resetsAt <= this.clock.now()) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }
}
