import type { FormSettings } from '../../contract/forms.ts';
import { checkCustomRegex } from './custom-regex.ts';
import { validationFailed } from './errors.ts';

export const DEFAULT_SETTINGS: FormSettings = {
  redirect_url: null,
  honeypot_field: '_gotcha',
  allowed_origins: [],
  custom_rules: { blocked_emails: [], keywords: [], regex: [] },
  ai_threshold: 0.75,
};

export function checkHoneypotField(name: string): void {
  if (!name.startsWith('_')) {
    // A honeypot must be a control field, or real payload fields could be mistaken for bot bait.
    throw validationFailed([{ in: 'body', path: 'settings.honeypot_field', message: 'The honeypot field name must start with "_".' }]);
  }
}

/** A form's stored settings over the defaults (settings saved before a new one existed lack it). */
export function formSettings(stored: unknown): FormSettings {
  const s = (stored ?? {}) as Partial<FormSettings>;
  const rules = { ...DEFAULT_SETTINGS.custom_rules, ...(s.custom_rules ?? {}) };
  return {
    redirect_url: s.redirect_url ?? DEFAULT_SETTINGS.redirect_url,
    honeypot_field: s.honeypot_field ?? DEFAULT_SETTINGS.honeypot_field,
    allowed_origins: s.allowed_origins ?? DEFAULT_SETTINGS.allowed_origins,
    custom_rules: { blocked_emails: rules.blocked_emails, keywords: rules.keywords, regex: rules.regex },
    ai_threshold: s.ai_threshold ?? DEFAULT_SETTINGS.ai_threshold,
  };
}

export type DisabledRule = { kind: 'regex'; pattern: string; reason: string };

/**
 * Stored rules the spam filter cannot run: regexes saved before custom rules ran on RE2, moved aside by
 * migration 0005 (`settings.disabled_rules`) and shown on the form until the editor saves the form's
 * regex rules again.
 */
export function disabledRules(stored: unknown): DisabledRule[] {
  const list = (stored as { disabled_rules?: unknown } | null)?.disabled_rules;
  return Array.isArray(list) ? (list as DisabledRule[]) : [];
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
