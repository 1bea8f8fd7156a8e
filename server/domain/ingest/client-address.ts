import ipaddr from 'ipaddr.js';

/**
 * What per-address limits count: an IPv4 address as is (IPv4-mapped IPv6 included), an IPv6 address by
 * its /64 — one subscriber's whole prefix, which a client can otherwise rotate through at will.
 */
export function limitSubject(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const addr = ipaddr.process(ip);
  if (addr.kind() === 'ipv4') return addr.toString();
  const groups = (addr as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4);
  return `${groups.join(':')}::/64`;
}
