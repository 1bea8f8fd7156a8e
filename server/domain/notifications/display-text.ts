/** Submitted values as people read them in e-mails and pages. */

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A payload value as one line of text — lists joined with ", ", objects as JSON — cut after `maxChars`. */
export function valueText(v: unknown, maxChars: number): string {
  let s: string;
  if (v === null || v === undefined) s = '';
  else if (Array.isArray(v)) s = v.map((x) => valueText(x, maxChars)).join(', ');
  else if (typeof v === 'object') s = JSON.stringify(v);
  else s = String(v);
  return s.length > maxChars ? `${s.slice(0, maxChars)}…` : s;
}
