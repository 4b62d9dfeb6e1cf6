import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { errorCode } from '@app/common';

/**
 * Work a request must not wait for, because how long it takes would tell whether an account
 * exists: a reset, unlock or confirmation mail issued (or not) for the address given, a sign-up's
 * account made (or not, the address being taken), a wrong password counted toward an account's
 * lockout. The answer is the same page either way; without this its timing was not (a write
 * transaction for an account, none for an unknown address: tens of milliseconds on SQLite).
 *
 * The work runs one piece at a time, in the order started: what a request no longer waits for
 * must not pile onto the database beside the requests (on SQLite, TypeORM's transactions share
 * one connection), and a lockout counts failures in the order they came. A failure is logged by
 * its type only (never an address or a token) and reaches no request. The service's shutdown
 * waits for the work under way (so does a test, through `settled`).
 */
/**
 * Waits for the event loop's next turn: the answer of the request that queued the work is written
 * in this one, before the work (whose queries run on this thread on SQLite) can delay it.
 */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

@Injectable()
export class UnseenWork implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Accounts');
  private tail: Promise<void> = Promise.resolve();

  /** Queues `work`, without the caller waiting for it. */
  start(what: string, work: () => Promise<unknown>): void {
    this.tail = this.tail.then(nextTurn).then(work).then(
      () => undefined,
      (error: unknown) => {
        const code = errorCode(error);
        this.logger.error(`${what} failed: ${error instanceof Error ? error.name : typeof error}${code ? ` (${code})` : ''}`);
      },
    );
  }

  /** Resolves once the work queued so far (and any it queued in turn) has ended. */
  async settled(): Promise<void> {
    for (let tail = this.tail; ; tail = this.tail) {
      await tail;
      if (tail === this.tail) return;
    }
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.settled();
  }
}
