import { endpointsInTurn, inTurn } from './claim-order';

describe('claim order', () => {
  it('takes users in turn, the longest waiting first, and each user\'s endpoints in turn; nothing not yet due', () => {
    const busy = [
      ...[1, 2, 3, 4].map((n) => ({ webhookId: 10 + n, userId: 1, head: n })), // X: four endpoints, waiting longest
      { webhookId: 20, userId: 2, head: 50 }, // Y: one endpoint
      { webhookId: 30, userId: 3, head: 40 }, // Z: one endpoint due, one not yet
      { webhookId: 31, userId: 3, head: 1000 },
    ];
    expect(endpointsInTurn(busy, 100).map((endpoint) => endpoint.webhookId)).toEqual([11, 30, 20, 12, 13, 14]);
  });

  it('interleaves lists of any lengths', () => {
    expect(inTurn([[1, 2, 3], [], [4], [5, 6]])).toEqual([1, 4, 5, 2, 6, 3]);
    expect(inTurn([])).toEqual([]);
  });
});
