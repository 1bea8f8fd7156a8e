import type { FormSettings } from '../../contract/forms.ts';
import { validationFailed, type ErrorDetail } from './errors.ts';

export const DEFAULT_SETTINGS: FormSettings = {
  redirect_url: null,
  honeypot_field: '_gotcha',
  allowed_origins: [],
  custom_rules: { blocked_emails: [], keywords: [], regex: [] },
  ai_threshold: 0.75,
};

// Nested quantifiers such as (a+)+ or (\w*)* backtrack exponentially; custom rules run on every post.
const NESTED_QUANTIFIER = /\([^)]*[+*][^)]*\)[+*{]/;

/** Rejects, at save time, a regex that does not compile or could hang the public endpoint. */
export function checkCustomRegex(patterns: string[]): void {
  const details: ErrorDetail[] = [];
  patterns.forEach((pattern, i) => {
    try {
      new RegExp(pattern, 'iu');
    } catch (err) {
      details.push({ in: 'body', path: `settings.custom_rules.regex.${i}`, message: `Invalid regular expression: ${(err as Error).message}` });
      return;
    }
    if (NESTED_QUANTIFIER.test(pattern)) {
      details.push({ in: 'body', path: `settings.custom_rules.regex.${i}`, message: 'Nested quantifiers (e.g. (a+)+) are not allowed: they can take exponential time.' });
    }
  });
  if (details.length) throw validationFailed(details, 'Invalid custom rule regular expression.');
}

export function checkHoneypotField(name: string): void {
  if (!name.startsWith('_')) {
    // A honeypot must be a control field, or real payload fields could be mistaken for bot bait.
    throw validationFailed([{ in: 'body', path: 'settings.honeypot_field', message: 'The honeypot field name must start with "_".' }]);
  }
}

/** A form's stored settings over the defaults (settings saved before a new one existed lack it). */
export function formSettings(stored: unknown): FormSettings {
  const s = (stored ?? {}) as Partial<FormSettings>;
  return { ...DEFAULT_SETTINGS, ...s, custom_rules: { ...DEFAULT_SETTINGS.custom_rules, ...(s.custom_rules ?? {}) } };
}

type SettingsInput = Partial<Omit<FormSettings, 'custom_rules'>> & { custom_rules?: Partial<FormSettings['custom_rules']> };

export function mergeSettings(current: FormSettings, input: SettingsInput | undefined): FormSettings {
  if (!input) return current;
  const merged: FormSettings = {
    ...current,
    ...Object.fromEntries(Object.entries(input).filter(([k, v]) => k !== 'custom_rules' && v !== undefined)),
    custom_rules: { ...current.custom_rules, ...(input.custom_rules ?? {}) },
  };
  checkCustomRegex(merged.custom_rules.regex);
  checkHoneypotField(merged.honeypot_field);
  return merged;
}
