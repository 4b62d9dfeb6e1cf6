import { DeliverySlots } from './delivery-slots';

describe('DeliverySlots', () => {
  const sut = () =>
    new DeliverySlots({
      endpoints: { total: 4, perEndpoint: 2, perUser: 3 },
      mails: { total: 2, perEndpoint: 1, perUser: 1 },
    });
  const to = (userId: number, webhookId: number) => ({ userId, webhook: { id: webhookId } });
  const mail = (userId: number) => ({ userId, webhook: null });

  it('caps the attempts to one endpoint, then one user, then the lane', () => {
    const slots = sut();
    slots.take('endpoints', to(1, 10));
    slots.take('endpoints', to(1, 10));
    expect(slots.fits('endpoints', to(1, 10))).toBe(false);
    expect(slots.fits('endpoints', to(1, 11))).toBe(true);
    slots.take('endpoints', to(1, 11));
    expect(slots.fits('endpoints', to(1, 12))).toBe(false);
    expect(slots.fits('endpoints', to(2, 20))).toBe(true);
    slots.take('endpoints', to(2, 20));
    expect([slots.free('endpoints'), slots.fits('endpoints', to(3, 30))]).toEqual([0, false]);
  });

  it('frees what ends, and keeps the lanes apart: webhooks never take a mail\'s slot', () => {
    const slots = sut();
    for (const webhookId of [10, 11, 12]) slots.take('endpoints', to(1, webhookId));
    slots.take('endpoints', to(2, 20));
    expect(slots.fits('mails', mail(1))).toBe(true);
    slots.take('mails', mail(1));
    expect(slots.fits('mails', mail(1))).toBe(false);
    expect(slots.fits('mails', mail(2))).toBe(true);
    slots.release('endpoints', to(1, 10));
    expect([slots.inFlight('endpoints'), slots.fits('endpoints', to(1, 10))]).toEqual([3, true]);
  });
});
