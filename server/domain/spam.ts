import type { FormSettings } from '../../contract/forms.ts';

export type SpamReason = 'honeypot_filled' | 'rate_limited' | 'rule:blocked_email' | 'rule:keyword' | 'rule:regex' | 'ai_moderation';

type Fields = Record<string, unknown>;

/** Longest text a custom regex is run against, so a rule's cost stays bounded per post. */
const REGEX_TEXT_LIMIT = 20_000;

function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number' || typeof value === 'boolean') out.push(String(value));
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
}

const EMAIL_RE = /[^\s@<>"',;]+@[^\s@<>"',;]+\.[^\s@<>"',;]+/g;

/** Every e-mail address in the payload and the `_replyto` control. */
export function emailsIn(payload: Fields, replyTo: string | null): string[] {
  const found = new Set<string>();
  for (const s of [...strings(payload), ...(replyTo ? [replyTo] : [])]) {
    for (const m of s.matchAll(EMAIL_RE)) found.add(m[0].toLowerCase());
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
}): SpamReason | null {
  const honeypot = input.controls[input.settings.honeypot_field];
  if (strings(honeypot).some((s) => s.trim() !== '')) return 'honeypot_filled';
  if (input.rateLimited) return 'rate_limited';

  const rules = input.settings.custom_rules;
  if (rules.blocked_emails.length && blockedEmail(rules.blocked_emails, emailsIn(input.payload, input.replyTo))) {
    return 'rule:blocked_email';
  }
  const text = strings(input.payload).join('\n');
  const lower = text.toLowerCase();
  if (rules.keywords.some((k) => k.trim() && lower.includes(k.trim().toLowerCase()))) return 'rule:keyword';
  const bounded = text.slice(0, REGEX_TEXT_LIMIT);
  if (rules.regex.some((r) => new RegExp(r, 'iu').test(bounded))) return 'rule:regex';
  return null;
}
