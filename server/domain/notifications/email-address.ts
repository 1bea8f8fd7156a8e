/** One plain address: no display name, no list, nothing a header could be bent with. */
const ADDRESS_RE = /^[^\s@<>()",;:\\[\]]+@[^\s@<>()",;:\\[\]]+\.[^\s@<>()",;:\\[\].]{2,}$/;

/** The candidate as one plain lower-cased address we may send to, or null. */
export function plainAddress(candidate: unknown): string | null {
  if (typeof candidate !== 'string') return null;
  const address = candidate.trim().toLowerCase();
  return address.length <= 320 && ADDRESS_RE.test(address) ? address : null;
}
