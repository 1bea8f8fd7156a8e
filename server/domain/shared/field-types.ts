import { isStorableText } from '../../../contract/common.ts';

export type ParsedField = {
  name: string;
  type: 'string' | 'number' | 'boolean' | 'date' | 'email' | 'url' | 'list' | 'object' | 'empty';
  value: unknown;
};

const NUMBER = /^[+-]?(\d+(\.\d+)?|\.\d+)([eE][+-]?\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const EMAIL = /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+\.[A-Za-z]{2,}$/;
const BOOLEANS: Record<string, boolean> = { true: true, false: false, on: true, off: false };

/** Recognises what a posted value is: form posts carry only strings, so "42", "on" and "2026-01-31" are typed here. */
export function parseField(name: string, raw: unknown): ParsedField {
  if (raw === null || raw === undefined || raw === '') return { name, type: 'empty', value: null };
  if (Array.isArray(raw)) return { name, type: 'list', value: raw };
  if (typeof raw === 'object') return { name, type: 'object', value: raw };
  if (typeof raw === 'number') return { name, type: 'number', value: raw };
  if (typeof raw === 'boolean') return { name, type: 'boolean', value: raw };
  const s = String(raw).trim();
  // Leading zeros (phone numbers, postcodes) stay text: converting would change them.
  if (NUMBER.test(s) && !/^[+-]?0\d/.test(s) && s.length <= 18) return { name, type: 'number', value: Number(s) };
  const lower = s.toLowerCase();
  if (lower in BOOLEANS) return { name, type: 'boolean', value: BOOLEANS[lower] };
  if (DATE.test(s) && !Number.isNaN(Date.parse(s))) {
    return { name, type: 'date', value: s.length === 10 ? s : new Date(s).toISOString() };
  }
  if (EMAIL.test(s)) return { name, type: 'email', value: s.toLowerCase() };
  if (/^https?:\/\/\S+$/i.test(s)) {
    try {
      return { name, type: 'url', value: new URL(s).toString() };
    } catch {
      // not a URL after all
    }
  }
  return { name, type: 'string', value: String(raw) };
}

export function parseFields(payload: Record<string, unknown>): ParsedField[] {
  return Object.entries(payload).map(([k, v]) => parseField(k, v));
}

/**
 * The path of the first string or key Postgres cannot store (U+0000, a lone surrogate), or null: refused
 * rather than silently changed. Callers bound the value's size and depth first.
 */
export function unstorableText(value: unknown): string | null {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (!isStorableText(v)) return path || '(root)';
    } else if (v && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        const at = path ? `${path}.${k}` : k;
        if (!isStorableText(k)) return at;
        stack.push([child, at]);
      }
    }
  }
  return null;
}

/** A name safe to echo in an error body: NUL shown as \0, unpaired surrogates as U+FFFD. */
export function printable(name: string): string {
  return name.replaceAll('\u0000', '\\0').toWellFormed();
}
