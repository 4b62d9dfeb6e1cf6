import type { WebhookSettings } from '@app/config';
import { BlockList, isIP } from 'node:net';

/** Longer URLs are not webhook receivers; the bound keeps stored rows and logs small. */
export const MAX_WEBHOOK_URL_LENGTH = 2000;

/** What the refused ranges are, in words for the people registering and reading deliveries. */
export const REFUSED_ADDRESS_KINDS = 'a private, loopback, link-local or metadata address';

type Family = 'ipv4' | 'ipv6';

/**
 * Addresses a webhook must never reach unless the operator allows them: the service's own host,
 * its network and the cloud's metadata service are exactly what a forged request (SSRF) wants.
 */
const REFUSED: BlockList = blockListOf([
  ['0.0.0.0', 8, 'ipv4'], // "this network": 0.0.0.0 reaches the local host
  ['10.0.0.0', 8, 'ipv4'], // private
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT, shared inside providers' networks
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['169.254.0.0', 16, 'ipv4'], // link-local, with the metadata service at 169.254.169.254
  ['172.16.0.0', 12, 'ipv4'], // private
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.168.0.0', 16, 'ipv4'], // private
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['168.63.129.16', 32, 'ipv4'], // Azure's virtual host address (DNS, DHCP, the VM agent's WireServer): public-looking, yet the host's
  ['224.0.0.0', 3, 'ipv4'], // multicast, reserved and broadcast: nothing above 224.0.0.0 is a receiver
  ['::', 96, 'ipv6'], // unspecified (::), loopback (::1) and the deprecated IPv4-compatible addresses
  ['64:ff9b:1::', 48, 'ipv6'], // local-use NAT64 outside 64:ff9b:1::/96: where its IPv4 address sits cannot be known (IPV4_CARRIERS)
  ['fc00::', 7, 'ipv6'], // unique local, with AWS's metadata service at fd00:ec2::254
  ['fe80::', 10, 'ipv6'], // link-local
  ['fec0::', 10, 'ipv6'], // the deprecated site-local addresses, still routed inside some networks
  ['ff00::', 8, 'ipv6'], // multicast
]);

/**
 * IPv6 addresses that carry an IPv4 address, and lead to it through a translator or tunnel. They
 * are judged by the IPv4 address they carry (`embedded`, read from the address's 16 bytes), so
 * ::ffff:127.0.0.1 is loopback while a public address behind DNS64 stays reachable. Where the
 * position cannot be known, `embedded` gives nothing and the address is judged as itself.
 */
const IPV4_CARRIERS: { range: BlockList; embedded: (bytes: number[]) => number[] | undefined }[] = [
  // IPv4-mapped (::ffff:a.b.c.d, what dual-stack sockets use) and IPv4-translated (SIIT, ::ffff:0:a.b.c.d).
  { range: ipv6Range('::ffff:0:0', 96), embedded: (b) => b.slice(12, 16) },
  { range: ipv6Range('::ffff:0:0:0', 96), embedded: (b) => b.slice(12, 16) },
  // NAT64's well-known prefix (RFC 6052): the IPv4 address in the last 32 bits.
  { range: ipv6Range('64:ff9b::', 96), embedded: (b) => b.slice(12, 16) },
  // NAT64's local-use prefix (RFC 8215): the operator may translate with any /48 to /96 inside it, which places the IPv4 address
  // differently (RFC 6052 2.2); only 64:ff9b:1::/96, the usual choice, can be read without knowing which. The rest is REFUSED.
  { range: ipv6Range('64:ff9b:1::', 48), embedded: (b) => (b.slice(6, 12).every((byte) => byte === 0) ? b.slice(12, 16) : undefined) },
  // 6to4 (RFC 3056): the site's IPv4 address in bits 16-47.
  { range: ipv6Range('2002::', 16), embedded: (b) => b.slice(2, 6) },
  // Teredo (RFC 4380): the client's IPv4 address, inverted, in the last 32 bits.
  { range: ipv6Range('2001::', 32), embedded: (b) => b.slice(12, 16).map((byte) => byte ^ 0xff) },
];

function ipv6Range(network: string, bits: number): BlockList {
  return blockListOf([[network, bits, 'ipv6']]);
}

function blockListOf(ranges: [network: string, bits: number, family: Family][]): BlockList {
  const list = new BlockList();
  for (const [network, bits, family] of ranges) list.addSubnet(network, bits, family);
  return list;
}

/**
 * Why a webhook URL cannot be registered (a user-facing sentence ending for "url ..."), or
 * undefined when it may be. Host names are judged when delivering, by the addresses they resolve to.
 */
export function refusedWebhookUrl(url: string, settings: WebhookSettings): string | undefined {
  if (url.length > MAX_WEBHOOK_URL_LENGTH) return `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`;
  if (!URL.canParse(url)) return 'must be an absolute URL';
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && !(settings.allowHttp && parsed.protocol === 'http:')) {
    return settings.allowHttp ? 'must use https or http' : 'must use https';
  }
  if (parsed.username !== '' || parsed.password !== '') return 'must not contain a user name or password';
  const address = literalAddress(parsed);
  if (address !== undefined && isRefusedAddress(address, settings)) return `must not point to ${REFUSED_ADDRESS_KINDS}`;
  return undefined;
}

/**
 * Whether a connection to this address is refused: it lies in a private, loopback, link-local,
 * metadata or reserved range and no entry of `allowedHosts` (an address or CIDR range) contains it.
 * Anything that is not an IP address is refused, as nothing safe can be said about it.
 */
export function isRefusedAddress(ip: string, settings: WebhookSettings): boolean {
  const target = connectionTarget(ip);
  if (target === undefined) return true;
  return REFUSED.check(target.address, target.family) && !allowedRanges(settings).check(target.address, target.family);
}

/** Whether `allowedHosts` names this URL host, which then may resolve to any address. */
export function isAllowedHostName(hostname: string, settings: WebhookSettings): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return settings.allowedHosts.includes(name);
}

/** The IP address a URL names literally (WHATWG URLs have already normalised 0x7f.1 and the like), if any. */
export function literalAddress(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) === 0 ? undefined : host;
}

/** The address a connection really goes to, with its family: an IPv4-carrying IPv6 address yields the IPv4 address it carries. */
function connectionTarget(ip: string): { address: string; family: Family } | undefined {
  switch (isIP(ip)) {
    case 4:
      return { address: ip, family: 'ipv4' };
    case 6: {
      const ipv4 = IPV4_CARRIERS.find(({ range }) => range.check(ip, 'ipv6'))?.embedded(bytesOf(ip));
      return ipv4 === undefined ? { address: ip, family: 'ipv6' } : { address: ipv4.join('.'), family: 'ipv4' };
    }
    default:
      return undefined;
  }
}

/** The 16 bytes of an IPv6 address; the URL parser first writes it in one form (hex groups, `::` once, no zone, no dotted tail). */
function bytesOf(ipv6: string): number[] {
  const [head, tail] = new URL(`http://[${ipv6.replace(/%.*$/, '')}]`).hostname.slice(1, -1).split('::');
  const groupsOf = (text: string | undefined) => (text ? text.split(':').map((group) => parseInt(group, 16)) : []);
  const left = groupsOf(head);
  const right = groupsOf(tail);
  const groups = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.flatMap((group) => [group >> 8, group & 0xff]);
}

function allowedRanges(settings: WebhookSettings): BlockList {
  const allowed = new BlockList();
  for (const entry of settings.allowedHosts) {
    const [address, bits] = entry.split('/');
    const family = isIP(address);
    if (family === 0) continue; // a host name, matched by isAllowedHostName
    const name: Family = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) allowed.addAddress(address, name);
    else allowed.addSubnet(address, Number(bits), name);
  }
  return allowed;
}
