import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Metadata endpoints outside the ranges ipaddr.js names (AWS's IPv6 one sits in unique-local space anyway). */
const METADATA = new Set(['fd00:ec2::254']);

/**
 * Whether a webhook may connect to this address: only global unicast. Private, loopback, link-local (the
 * 169.254.169.254 metadata address included), CGNAT, multicast, unspecified, broadcast, reserved and
 * unique-local are refused; IPv6 forms that embed an IPv4 address (mapped, 6to4, Teredo, NAT64) are judged by it.
 */
export function isPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    if (METADATA.has(v6.toNormalizedString().replace(/(^|:)0+(?=[0-9a-f])/g, '$1')) || METADATA.has(v6.toString())) return false;
    if (v6.isIPv4MappedAddress()) addr = v6.toIPv4Address();
    else {
      const range = v6.range();
      if (range === '6to4') return isPublicAddress(ipaddr.fromByteArray(v6.toByteArray().slice(2, 6)).toString());
      if (range === 'teredo') return isPublicAddress(ipaddr.fromByteArray(v6.toByteArray().slice(12, 16).map((b) => b ^ 0xff)).toString());
      if (range === 'rfc6052' || range === 'rfc6145') return isPublicAddress(ipaddr.fromByteArray(v6.toByteArray().slice(12, 16)).toString());
    }
  }
  return addr.range() === 'unicast';
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

const resolveAll = async (host: string) => (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * A webhook URL as create/update accept it: https, no credentials, at most 2,048 characters, and — unless
 * private webhooks are allowed — a host whose every address is public (an IP literal in any notation the URL
 * parser reads, such as 2130706433 or 0x7f.1, is judged as the address it means). Checked again at connect time.
 */
export async function checkWebhookUrl(
  raw: string,
  opts: { allowPrivate: boolean; lookup?: (host: string) => Promise<string[]> },
): Promise<UrlCheck> {
  if (raw.length > 2048) return { ok: false, reason: 'is longer than 2,048 characters' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'is not a valid URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: 'must use https' };
  if (url.username || url.password) return { ok: false, reason: 'must not carry a user name or password' };
  if (opts.allowPrivate) return { ok: true, url };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return isPublicAddress(host) ? { ok: true, url } : { ok: false, reason: 'points to a private or reserved address' };
  let addresses: string[];
  try {
    addresses = await (opts.lookup ?? resolveAll)(host);
  } catch {
    return { ok: false, reason: 'has a host name that does not resolve' };
  }
  if (!addresses.length) return { ok: false, reason: 'has a host name that does not resolve' };
  if (!addresses.every(isPublicAddress)) return { ok: false, reason: 'resolves to a private or reserved address' };
  return { ok: true, url };
}

function blocked(host: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`${host} resolves to a private or reserved address`);
  err.code = 'EBLOCKEDADDRESS';
  return err;
}

/**
 * A `lookup` for outgoing connections (undici's `connect.lookup`): resolves as usual, then refuses any
 * address that is not public — so a name that resolved to a public address at create time and to an
 * internal one now (DNS rebinding) is stopped before connecting. With `allowPrivate` it is plain dns.lookup.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      if (!allowPrivate && list.some((a) => !isPublicAddress(a.address))) return callback(blocked(hostname), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}
