import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The SSRF guard for webhook URLs (DESIGN.md "Delivery"): a webhook may reach only public addresses, checked
 * when the URL is saved and again at every connect, since DNS can answer differently later (rebinding).
 */

/** Cloud metadata endpoints outside the ranges ipaddr.js names. AWS's IPv6 one is unique-local anyway; kept explicit. */
const METADATA = [ipaddr.parse('fd00:ec2::254')];

/** Global unicast IPv6 (2000::/3): everything outside it is reserved, local or unassigned (e.g. `::7f00:1`). */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/** The IPv4 address an IPv6 address carries (mapped, IPv4-translated, NAT64, 6to4, Teredo), if any. */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | 'opaque' | null {
  const bytes = v6.toByteArray();
  switch (v6.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return ipaddr.fromByteArray(bytes.slice(12, 16)) as ipaddr.IPv4;
    case 'rfc6052':
      // 64:ff9b::/96 carries it in the last 32 bits; the local-use 64:ff9b:1::/48 (RFC 8215) is a site's own
      // translator with any layout, so it is not public.
      return v6.match(ipaddr.parseCIDR('64:ff9b::/96'))
        ? (ipaddr.fromByteArray(bytes.slice(12, 16)) as ipaddr.IPv4)
        : 'opaque';
    case '6to4':
      return ipaddr.fromByteArray(bytes.slice(2, 6)) as ipaddr.IPv4;
    case 'teredo':
      // The client address, stored inverted in the last 32 bits (RFC 4380).
      return ipaddr.fromByteArray(bytes.slice(12, 16).map((b) => b ^ 0xff)) as ipaddr.IPv4;
    default:
      return null;
  }
}

/**
 * Whether a webhook may connect to this address: only ipaddr.js's `unicast` range (and, for IPv6, within
 * 2000::/3). Refused: private, loopback, link-local (169.254.169.254 metadata included), CGNAT, multicast,
 * unspecified, broadcast, reserved, unique-local, and IPv6 forms that embed a non-public IPv4 address
 * (mapped `::ffff:127.0.0.1`, NAT64, 6to4, Teredo). Anything that is not an IP address is refused too.
 */
export function isPublicAddress(ip: string): boolean {
  // net.isIP is strict (dotted quads only), so a form like "0x7f.1" never reaches ipaddr's lenient parser.
  if (!isIP(ip)) return false;
  const addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv4') return addr.range() === 'unicast';
  const v6 = addr as ipaddr.IPv6;
  if (METADATA.some((m) => m.toNormalizedString() === v6.toNormalizedString())) return false;
  const v4 = embeddedIPv4(v6);
  if (v4 === 'opaque') return false;
  if (v4) return v4.range() === 'unicast';
  return v6.range() === 'unicast' && v6.match(GLOBAL_UNICAST);
}

/** The outcome of `checkWebhookUrl`; `reason` completes "The URL …". */
export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

const resolveAll = async (host: string) =>
  (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * A webhook URL as create/update accept it: at most 2,048 characters, https, no user name or password, and —
 * unless private webhooks are allowed (then no DNS is done) — a host whose every address is public. An IP
 * literal is judged directly; the URL parser has already turned forms such as `2130706433`, `0177.0.0.1` or
 * `0x7f.1` into the dotted quad they mean. Refusing a name when any one of its addresses is private stops a
 * host that round-robins between a public and an internal address.
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
  if (isIP(host))
    return isPublicAddress(host) ? { ok: true, url } : { ok: false, reason: 'points to a private or reserved address' };
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

type AllCallback = (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void;

/**
 * A `net.LookupFunction` for outgoing webhook connections (undici `Agent({ connect: { lookup } })`): resolves
 * with `dns.lookup`, then — unless `allowPrivate` — fails with code `EBLOCKEDADDRESS` when any address is not
 * public, so a name that was public when saved and points inside now (DNS rebinding) is stopped before the
 * socket opens. Supports `options.all` true and false. IP-literal host names are judged the same way, but note
 * that Node's `net.connect` does not call `lookup` for an IP literal: the sender must check those itself.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      if (!allowPrivate && addresses.some((a) => !isPublicAddress(a.address)))
        return callback(blocked(hostname), '', 0);
      if (options.all) return (callback as unknown as AllCallback)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}
