import { BlockList, isIP } from 'node:net';

/**
 * Whether an address (the peer, or a hop of X-Forwarded-For) is one of the trusted proxies:
 * Express's "trust proxy" test for `trustedProxies`. Node's BlockList rather than Express's own
 * parser (proxy-addr), which throws on a /0 prefix: 0.0.0.0/0 and ::/0 are valid settings and mean
 * every address. IPv4 entries also match IPv4-mapped IPv6 peers (::ffff:10.0.0.7), as dual-stack
 * sockets report IPv4 clients.
 */
export function proxyTrust(trustedProxies: readonly string[]): (address: string | undefined) => boolean {
  // Express asks several times a request (ip, protocol, host): nobody trusted needs no address parsed.
  if (trustedProxies.length === 0) return () => false;
  const proxies = new BlockList();
  for (const entry of trustedProxies) {
    const [address, bits] = entry.split('/');
    const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) proxies.addAddress(address, family);
    else proxies.addSubnet(address, Number(bits), family);
  }
  return (address = '') => {
    const family = isIP(address);
    return family !== 0 && proxies.check(address, family === 4 ? 'ipv4' : 'ipv6');
  };
}
