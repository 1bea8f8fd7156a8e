import type { FormSettings } from '../../../contract/forms.ts';
import { compileRule } from './custom-regex.ts';
import { stringsIn } from '../shared/json-walk.ts';

export type SpamReason =
  | 'honeypot_filled'
  | 'rate_limited'
  | 'rule:blocked_email'
  | 'rule:keyword'
  | 'rule:regex'
  | 'captcha_unverified'
  | 'ai_moderation';

type Fields = Record<string, unknown>;

/**
 * Custom regexes see the first REGEX_TEXT_LIMIT characters of the payload's text, fewer with many rules, so
 * rules × characters stays within REGEX_WORK_LIMIT: RE2 is linear, so this bounds what rules cost a post.
 */
export const REGEX_TEXT_LIMIT = 8_000;
const REGEX_WORK_LIMIT = 32_000;

function strings(value: unknown): string[] {
  return [...stringsIn(value)];
}

/** Characters that may appear in the local part or domain of an address we pick out of text. */
const ADDRESS_CHAR = /[^\s@<>"',;]/;

/** The e-mail-like tokens of a text (`local@domain.tld`), found around each `@` in linear time (no backtracking regex). */
export function addressesIn(text: string): string[] {
  const found: string[] = [];
  let at = text.indexOf('@');
  while (at !== -1) {
    // Both scans stop at the neighbouring `@`: each character is read at most twice.
    let start = at;
    while (start > 0 && ADDRESS_CHAR.test(text[start - 1]!)) start--;
    let end = at + 1;
    while (end < text.length && ADDRESS_CHAR.test(text[end]!)) end++;
    const local = text.slice(start, at);
    const domain = text.slice(at + 1, end);
    // A dot with something on both sides somewhere in the domain (`x@y.z`).
    if (local && domain.slice(1, -1).includes('.')) found.push(`${local}@${domain}`);
    at = text.indexOf('@', Math.max(end, at + 1));
  }
  return found;
}

/** Every e-mail address in the payload and the `_replyto` control. */
export function emailsIn(payload: Fields, replyTo: string | null): string[] {
  const found = new Set<string>();
  for (const s of [...strings(payload), ...(replyTo ? [replyTo] : [])]) {
    for (const address of addressesIn(s)) found.add(address.toLowerCase());
  }
  return [...found];
}

/** The sender's address: an `email`-like field first, then `_replyto`, then any address in the payload. */
export function senderEmail(payload: Fields, replyTo: string | null): string | null {
  for (const [k, v] of Object.entries(payload)) {
    if (/e-?mail/i.test(k) && typeof v === 'string' && v.includes('@')) return v.trim().toLowerCase();
  }
  return replyTo?.trim().toLowerCase() || emailsIn(payload, null)[0] || null;
}

function blockedEmail(blocked: string[], emails: string[]): boolean {
  const rules = blocked.map((b) => b.trim().toLowerCase()).filter(Boolean);
  return emails.some((email) =>
    rules.some((rule) => {
      if (rule.startsWith('*@')) return email.endsWith(rule.slice(1));
      if (rule.startsWith('@')) return email.endsWith(rule);
      return email === rule;
    }),
  );
}

/**
 * The synchronous part of the spam stack, in order: honeypot → rate limit → custom rules.
 * (AI moderation runs in the process-submission job.) Returns the first reason found, or null.
 */
export function screen(input: {
  settings: FormSettings;
  payload: Fields;
  controls: Record<string, unknown>;
  replyTo: string | null;
  rateLimited: boolean;
  /** A server-side submit has no honeypot: no bot fills in a server's fields. */
  honeypot: boolean;
}): SpamReason | null {
  const honeypot = input.honeypot ? input.controls[input.settings.honeypot_field] : undefined;
  if (strings(honeypot).some((s) => s.trim() !== '')) return 'honeypot_filled';
  if (input.rateLimited) return 'rate_limited';

  const rules = input.settings.custom_rules;
  if (rules.blocked_emails.length && blockedEmail(rules.blocked_emails, emailsIn(input.payload, input.replyTo))) {
    return 'rule:blocked_email';
  }
  const text = strings(input.payload).join('\n');
  const lower = text.toLowerCase();
  if (rules.keywords.some((k) => k.trim() && lower.includes(k.trim().toLowerCase()))) return 'rule:keyword';
  if (rules.regex.length) {
    const bounded = text.slice(0, Math.min(REGEX_TEXT_LIMIT, Math.floor(REGEX_WORK_LIMIT / rules.regex.length)));
    if (rules.regex.some((r) => compileRule(r)?.test(bounded))) return 'rule:regex';
  }
  return null;
}
