import { proxyTrust } from './trusted-proxies';

describe('proxyTrust', () => {
  it('trusts the listed addresses and ranges, IPv4 ones also as IPv4-mapped IPv6 peers', () => {
    const sut = proxyTrust(['10.0.0.0/8', '192.168.1.7', 'fc00::/7', '::1']);
    expect(['10.1.2.3', '::ffff:10.1.2.3', '192.168.1.7', 'fd12::1', '::1'].map(sut)).toEqual([true, true, true, true, true]);
    expect(['11.0.0.1', '192.168.1.8', '::ffff:192.168.1.8', '2001:db8::1', '127.0.0.1'].map(sut)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it("reads 0.0.0.0/0 as every IPv4 peer and ::/0 as every peer (Express's own parser throws on both)", () => {
    expect(['1.2.3.4', '::ffff:1.2.3.4', '2001:db8::1'].map(proxyTrust(['0.0.0.0/0']))).toEqual([true, true, false]);
    expect(['2001:db8::1', 'fe80::1', '1.2.3.4'].map(proxyTrust(['::/0']))).toEqual([true, true, true]);
  });

  it('trusts nothing without entries, and never a missing or malformed address', () => {
    expect(['127.0.0.1', '::1'].map(proxyTrust([]))).toEqual([false, false]);
    expect([undefined, '', 'localhost'].map(proxyTrust(['0.0.0.0/0', '::/0']))).toEqual([false, false, false]);
  });
});
