import { MemoryThrottlerStorage } from './memory-throttler-storage';

const MINUTE = 60_000;
const START = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('MemoryThrottlerStorage', () => {
  let clock: number;
  let sut: MemoryThrottlerStorage;

  beforeEach(() => {
    clock = START;
    sut = new MemoryThrottlerStorage({ now: () => clock });
  });

  /** A client allowed 3 requests a minute, blocked for a minute when over (the guard's default block is the ttl). */
  const hit = (key = 'client-a', throttler = 'minute', blockDuration = MINUTE) => sut.increment(key, MINUTE, 3, blockDuration, throttler);

  async function hits(count: number, key?: string, throttler?: string) {
    const records = [];
    for (let i = 0; i < count; i++) records.push(await hit(key, throttler));
    return records;
  }

  it('counts hits within a window, reporting the seconds left in it', async () => {
    expect(await hit()).toEqual({ totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
    clock += 20_500;
    expect(await hit()).toEqual({ totalHits: 2, timeToExpire: 40, isBlocked: false, timeToBlockExpire: 0 });
    clock += 39_000;
    expect(await hit()).toEqual({ totalHits: 3, timeToExpire: 1, isBlocked: false, timeToBlockExpire: 0 });
  });

  it('blocks the (limit+1)th hit for the block duration', async () => {
    await hits(3);
    clock += 10_000;
    expect(await hit(undefined, undefined, 30_000)).toEqual({ totalHits: 4, timeToExpire: 50, isBlocked: true, timeToBlockExpire: 30 });
    clock += 12_300;
    expect(await hit()).toEqual({ totalHits: 5, timeToExpire: 38, isBlocked: true, timeToBlockExpire: 18 });
  });

  it('lifts the block after its duration, and a client that waited out the window starts counting again', async () => {
    await hits(3);
    expect((await hit()).isBlocked).toBe(true);
    clock += MINUTE - 1;
    expect(await hit()).toMatchObject({ isBlocked: true, timeToBlockExpire: 1 });

    clock += 2;
    expect(await hit()).toEqual({ totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
    expect((await hits(2)).map((record) => record.isBlocked)).toEqual([false, false]);
    expect(await hit()).toMatchObject({ totalHits: 4, isBlocked: true, timeToBlockExpire: 60 });
  });

  it('counts hits made while blocked, as Redis does, so a client that keeps hammering is blocked again', async () => {
    await hits(3);
    expect((await hit(undefined, undefined, 30_000)).isBlocked).toBe(true);
    clock += 31_000;
    expect(await hit(undefined, undefined, 30_000)).toEqual({ totalHits: 5, timeToExpire: 29, isBlocked: true, timeToBlockExpire: 30 });
  });

  it('keeps separate counts per client and per throttler name', async () => {
    await hits(3, 'client-a', 'minute');
    expect((await hit('client-a', 'minute')).isBlocked).toBe(true);
    expect(await hit('client-b', 'minute')).toMatchObject({ totalHits: 1, isBlocked: false });
    expect(await hit('client-a', 'second')).toMatchObject({ totalHits: 1, isBlocked: false });
  });

  it('starts a new window once the ttl has passed', async () => {
    await hits(3);
    clock += MINUTE + 1;
    expect(await hit()).toEqual({ totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
  });

  it("follows Redis' expiry at a window's last millisecond: the window is still open, and is extended", async () => {
    await hit();
    clock += MINUTE;
    expect(await hit()).toEqual({ totalHits: 2, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
  });

  it("follows the Redis script at a block's last millisecond: the block is lifted and a fresh window starts", async () => {
    await hits(3);
    clock += 10_000;
    expect((await hit(undefined, undefined, 30_000)).isBlocked).toBe(true);
    clock += 30_000;
    expect(await hit(undefined, undefined, 30_000)).toEqual({ totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
    expect(await hit(undefined, undefined, 30_000)).toMatchObject({ totalHits: 2, isBlocked: false });
  });

  it('drops counters once both their window and their block are over', async () => {
    await hit('client-a');
    await hits(3, 'client-b');
    expect((await hit('client-b', 'minute', 3 * MINUTE)).isBlocked).toBe(true);
    expect(sut.size).toBe(2);

    clock += MINUTE + 1;
    await hit('client-c');
    expect(sut.size).toBe(2);

    clock += 2 * MINUTE;
    await hit('client-c');
    expect(sut.size).toBe(1);
  });

  it('sweeps at most once per sweep interval', async () => {
    await hit('client-a');
    clock += 500;
    await hit('client-b');

    clock = START + MINUTE + 1;
    await hit('client-c');
    expect(sut.size).toBe(2);

    clock = START + MINUTE + 600;
    await hit('client-c');
    expect(sut.size).toBe(2);

    clock = START + MINUTE + 1001;
    await hit('client-c');
    expect(sut.size).toBe(1);
  });

  it('fails, as the Redis script does, when the limit is passed with a non-positive block duration', async () => {
    await hits(3);
    await expect(sut.increment('client-a', MINUTE, 3, 0, 'minute')).rejects.toThrow(RangeError);
  });
});
