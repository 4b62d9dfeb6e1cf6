import type { WebhookSettings } from '@app/config';
import { isAllowedHostName, isRefusedAddress, literalAddress, refusedWebhookUrl } from './webhook-destination';

const settings = (overrides: Partial<WebhookSettings> = {}): WebhookSettings => ({
  allowHttp: false,
  allowedHosts: [],
  timeoutMs: 10_000,
  ...overrides,
});

const PRIVATE = 'must not point to a private, loopback, link-local or metadata address';

describe('isRefusedAddress', () => {
  it.each([
    ['0.0.0.0', 'this network'],
    ['0.1.2.3', 'this network'],
    ['10.1.2.3', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'the metadata service'],
    ['169.254.1.1', 'link-local'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.192', 'IETF protocol assignments'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::7f00:1', 'IPv4-compatible'],
    ['fc00::1', 'unique local'],
    ['fd00:ec2::254', "AWS's metadata service"],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local with a zone'],
    ['febf:ffff::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, in hex'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata service'],
    ['::ffff:0.0.0.0', 'IPv4-mapped this network'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of the metadata service'],
    ['64:ff9b::10.0.0.1', 'NAT64 of a private address'],
    ['168.63.129.16', "Azure's host address"],
    ['::ffff:168.63.129.16', "IPv4-mapped Azure host address"],
    ['::ffff:0:127.0.0.1', 'IPv4-translated (SIIT) loopback'],
    ['64:ff9b:1::7f00:1', 'local-use NAT64 (/96) of loopback'],
    ['64:ff9b:1:a9fe:a9:fe00::', 'local-use NAT64 of the metadata service, /48 form (not readable)'],
    ['64:ff9b:1:abcd::808:808', 'local-use NAT64 under another /96 (not readable)'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2002:a9fe:a9fe::1', '6to4 of the metadata service'],
    ['2002:c0a8:101:1::1', '6to4 of a private address'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo of 127.0.0.1'],
    ['localhost', 'not an address'],
    ['', 'not an address'],
  ])('refuses %s (%s)', (ip) => {
    expect(isRefusedAddress(ip, settings())).toBe(true);
  });

  it.each([
    ['1.1.1.1'],
    ['9.255.255.255'],
    ['11.0.0.1'],
    ['100.63.255.255'],
    ['100.128.0.1'],
    ['128.0.0.1'],
    ['169.253.255.255'],
    ['172.15.255.255'],
    ['172.32.0.1'],
    ['192.0.1.1'],
    ['192.169.0.1'],
    ['198.17.255.255'],
    ['198.20.0.1'],
    ['223.255.255.255'],
    ['2001:4860:4860::8888'],
    ['2606:4700::1111'],
    ['::ffff:8.8.8.8'],
    ['64:ff9b::808:808'],
    ['64:ff9b::8.8.4.4'],
    ['168.63.129.15'],
    ['168.63.129.17'],
    ['64:ff9b:1::808:808'],
    ['2002:808:808::1'],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7'],
  ])('lets %s through (public)', (ip) => {
    expect(isRefusedAddress(ip, settings())).toBe(false);
  });

  it('lets through what allowedHosts names, by address or containing range, and nothing more', () => {
    const sut = (ip: string) =>
      isRefusedAddress(ip, settings({ allowedHosts: ['hooks.internal', '127.0.0.1', '10.20.0.0/16', 'fd12::/16'] }));
    expect(['127.0.0.1', '::ffff:127.0.0.1', '10.20.3.4', 'fd12:3456::1'].map(sut)).toEqual([false, false, false, false]);
    expect(['127.0.0.2', '10.21.0.1', 'fd13::1', '169.254.169.254', '::1'].map(sut)).toEqual([true, true, true, true, true]);
  });

  it('judges an IPv6 address that carries an IPv4 address by the allowed IPv4 ranges, and an unreadable local NAT64 one by its own', () => {
    const sut = (ip: string) => isRefusedAddress(ip, settings({ allowedHosts: ['127.0.0.1', '64:ff9b:1:abcd::/96'] }));
    expect(['2002:7f00:1::', '64:ff9b:1::7f00:1', '64:ff9b:1:abcd::808:808'].map(sut)).toEqual([false, false, false]);
    expect(['2002:7f00:2::', '64:ff9b:1:abce::808:808'].map(sut)).toEqual([true, true]);
  });
});

describe('refusedWebhookUrl', () => {
  it.each([
    'https://hooks.example.com/pwpush',
    'https://hooks.example.com:8443/pwpush?token=abc',
    'https://8.8.8.8/hook',
    'https://[2606:4700::1111]/hook',
    'https://localhost/hook', // a name: judged by what it resolves to, when delivering
    'https://internal.corp/hook',
  ])('accepts %s', (url) => {
    expect(refusedWebhookUrl(url, settings())).toBeUndefined();
  });

  it.each([
    ['not a url', 'must be an absolute URL'],
    ['/relative/path', 'must be an absolute URL'],
    ['https://', 'must be an absolute URL'],
    [`https://hooks.example.com/${'a'.repeat(2000)}`, 'must be at most 2000 characters'],
    ['http://hooks.example.com/hook', 'must use https'],
    ['ftp://hooks.example.com/hook', 'must use https'],
    ['file:///etc/passwd', 'must use https'],
    ['javascript:alert(1)', 'must use https'],
    ['https://user:secret@hooks.example.com/hook', 'must not contain a user name or password'],
    ['https://user@hooks.example.com/hook', 'must not contain a user name or password'],
    ['https://127.0.0.1/hook', PRIVATE],
    ['https://169.254.169.254/latest/meta-data/', PRIVATE],
    ['https://10.1.2.3/hook', PRIVATE],
    ['https://[::1]/hook', PRIVATE],
    ['https://[::ffff:127.0.0.1]/hook', PRIVATE],
    ['https://[fd00:ec2::254]/hook', PRIVATE],
    ['https://2130706433/hook', PRIVATE], // 127.0.0.1 as one number
    ['https://0x7f.1/hook', PRIVATE], // 127.0.0.1 in hex and short form
    ['https://0/hook', PRIVATE], // 0.0.0.0
  ])('refuses %s: %s', (url, reason) => {
    expect(refusedWebhookUrl(url, settings())).toBe(reason);
  });

  it('accepts http only when allowHttp is set, and then says so when refusing other schemes', () => {
    const sut = settings({ allowHttp: true });
    expect(refusedWebhookUrl('http://hooks.example.com/hook', sut)).toBeUndefined();
    expect(refusedWebhookUrl('ftp://hooks.example.com/hook', sut)).toBe('must use https or http');
  });

  it('accepts a literal private address that allowedHosts names', () => {
    const sut = settings({ allowedHosts: ['127.0.0.1', '10.0.0.0/8', '::1'] });
    expect(
      ['https://127.0.0.1:8443/hook', 'https://10.1.2.3/hook', 'https://[::1]/hook'].map((url) => refusedWebhookUrl(url, sut)),
    ).toEqual([undefined, undefined, undefined]);
    expect(refusedWebhookUrl('https://169.254.169.254/', sut)).toBe(PRIVATE);
  });
});

describe('isAllowedHostName', () => {
  it('matches the URL host against the names in allowedHosts, ignoring case and a final dot', () => {
    const sut = settings({ allowedHosts: ['hooks.internal', '10.0.0.0/8'] });
    expect(['hooks.internal', 'HOOKS.internal', 'hooks.internal.'].map((host) => isAllowedHostName(host, sut))).toEqual([true, true, true]);
    expect(['evil.hooks.internal', 'hooks.internal.evil', 'internal', '10.1.2.3'].map((host) => isAllowedHostName(host, sut))).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('literalAddress', () => {
  it('gives the address a URL names literally, without brackets, and nothing for a name', () => {
    const sut = (url: string) => literalAddress(new URL(url));
    expect(['https://10.1.2.3/', 'https://[::1]:8443/', 'https://2130706433/', 'https://hooks.example.com/'].map(sut)).toEqual([
      '10.1.2.3',
      '::1',
      '127.0.0.1',
      undefined,
    ]);
  });
});
