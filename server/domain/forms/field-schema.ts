import { RE2JS } from 're2js';
import { toInstant } from '../../../contract/common.ts';
import type { FieldType, SchemaField, SchemaFieldView } from '../../../contract/form-features.ts';
import { CAPTCHA_TOKEN_FIELDS } from '../spam/captcha.ts';
import { regexProblem } from '../spam/custom-regex.ts';
import type { ErrorDetail } from '../shared/errors.ts';
import { parseField } from '../shared/field-types.ts';

/**
 * A form's field schema: checked when it is saved (checkSchema), applied to each post (applySchema: what
 * is wrong, in plain words per field, or the values typed), and proposed from stored posts (suggestSchema).
 */

export type FieldErrors = Record<string, string[]>;
export type UnknownFieldsPolicy = 'keep' | 'drop' | 'reject';
type Value = unknown;

/** A schema field with its defaults filled in, as stored and shown. */
export type Field = SchemaFieldView;

const LENGTH_TYPES = new Set<FieldType>(['text', 'email', 'url', 'tel']);
const VALUE_TYPES = new Set<FieldType>(['number', 'integer']);
const EMAIL = /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+\.[^\s@<>()[\],;:".]{2,}$/;
const NUMBER = /^[+-]?(\d+(\.\d+)?|\.\d+)([eE][+-]?\d+)?$/;
const TEL = /^\+?[0-9 ().-]{3,40}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const NAIVE_DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?$/;
const TRUE = new Set(['true', 'on', '1', 'yes']);
const FALSE = new Set(['false', 'off', '0', 'no']);

export function normalizeSchema(fields: SchemaField[]): Field[] {
  return fields.map((f) => ({ ...f, required: f.required ?? false }));
}

/** What is wrong with a schema, as the API's validation details (empty when it is fine). */
export function checkSchema(fields: SchemaField[]): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const problem = (i: number, key: string, message: string) =>
    details.push({ in: 'body', path: `settings.fields.${i}${key ? `.${key}` : ''}`, message });
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    if (seen.has(f.name)) problem(i, 'name', `The field "${f.name}" is named twice.`);
    seen.add(f.name);
    if (f.name.startsWith('_'))
      problem(i, 'name', 'Names starting with "_" are control fields (_replyto, _subject, …), not form fields.');
    if ((CAPTCHA_TOKEN_FIELDS as readonly string[]).includes(f.name))
      problem(i, 'name', 'This name carries a CAPTCHA token; it is never stored.');
    const choice = f.type === 'select' || f.type === 'multiselect';
    if (choice && !f.options) problem(i, 'options', `A ${f.type} field needs its options.`);
    if (!choice && f.options) problem(i, 'options', 'Options are for fields of type `select` or `multiselect`.');
    if (f.pattern !== undefined) {
      if (!LENGTH_TYPES.has(f.type)) problem(i, 'pattern', 'A pattern is for text, email, url and tel fields.');
      const why = regexProblem(f.pattern);
      if (why) problem(i, 'pattern', `Not a pattern the RE2 engine can run (${why}).`);
    }
    const bounded = LENGTH_TYPES.has(f.type) || VALUE_TYPES.has(f.type) || f.type === 'multiselect';
    for (const key of ['min', 'max'] as const) {
      const v = f[key];
      if (v === undefined) continue;
      if (!bounded)
        problem(
          i,
          key,
          `${key} is for lengths (text, email, url, tel), values (number, integer) and choices (multiselect).`,
        );
      else if (!VALUE_TYPES.has(f.type) && (!Number.isInteger(v) || v < 0))
        problem(i, key, `${key} is a count here: a whole number, 0 or more.`);
    }
    if (f.min !== undefined && f.max !== undefined && f.min > f.max) problem(i, 'min', 'min is greater than max.');
    if (f.type !== 'file' && (f.max_files !== undefined || f.accept !== undefined))
      problem(i, '', 'max_files and accept are for file fields.');
  });
  return details;
}

const compiled = new Map<string, RE2JS>();

/** The HTML `pattern` rule: the whole value matches (RE2, so linear in the value whatever the pattern). */
function matchesPattern(pattern: string, value: string): boolean {
  let re = compiled.get(pattern);
  if (!re) {
    if (compiled.size > 1000) compiled.clear();
    re = RE2JS.compile(`^(?:${pattern})$`);
    compiled.set(pattern, re);
  }
  return re.matcher(value).matches();
}

/** A posted value by name: only the payload's own keys (a field named `constructor` is not Object's). */
function own(payload: Record<string, Value>, name: string): Value {
  return Object.hasOwn(payload, name) ? payload[name] : undefined;
}

function isEmpty(v: Value): boolean {
  if (v === undefined || v === null) return true;
  if (typeof v === 'string') return v.trim() === '';
  return Array.isArray(v) && v.every(isEmpty);
}

function listed(options: string[]): string {
  const shown = options.slice(0, 10).join(', ');
  return options.length > 10 ? `${shown}, …` : shown;
}

type Coerced = { ok: true; value: Value } | { ok: false; message: string };
const fail = (message: string): Coerced => ({ ok: false, message });
const ok = (value: Value): Coerced => ({ ok: true, value });

function scalar(v: Value): string | null {
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

/** One value converted to the field's type, or what is wrong with it. `label` names the field in the message. */
function coerce(f: Field, label: string, raw: Value): Coerced {
  if (f.type === 'multiselect') {
    const values = (Array.isArray(raw) ? raw : [raw]).filter((v) => !isEmpty(v)).map(scalar);
    if (values.some((v) => v === null || !f.options!.includes(v)))
      return fail(`${label} must be chosen from: ${listed(f.options!)}.`);
    const chosen = [...new Set(values as string[])];
    if (f.min !== undefined && chosen.length < f.min) return fail(`Choose at least ${f.min} for ${label}.`);
    if (f.max !== undefined && chosen.length > f.max) return fail(`Choose at most ${f.max} for ${label}.`);
    return ok(chosen);
  }
  // A checkbox after a hidden field of the same name posts both: the last one is the answer.
  const one = Array.isArray(raw) ? (f.type === 'boolean' ? raw.at(-1) : raw.length === 1 ? raw[0] : undefined) : raw;
  if (Array.isArray(raw) && one === undefined) return fail(`${label} takes one value.`);
  const s = scalar(one);
  if (s === null) return fail(`${label} must be a single value.`);
  switch (f.type) {
    case 'number':
    case 'integer': {
      const n = typeof one === 'number' ? one : NUMBER.test(s) ? Number(s) : NaN;
      if (!Number.isFinite(n)) return fail(`${label} must be a number.`);
      if (f.type === 'integer' && !Number.isSafeInteger(n)) return fail(`${label} must be a whole number.`);
      if (f.min !== undefined && n < f.min) return fail(`${label} must be at least ${f.min}.`);
      if (f.max !== undefined && n > f.max) return fail(`${label} must be at most ${f.max}.`);
      return ok(n);
    }
    case 'boolean': {
      const lower = s.toLowerCase();
      if (TRUE.has(lower)) return ok(true);
      if (FALSE.has(lower)) return ok(false);
      return fail(`${label} must be yes or no.`);
    }
    case 'date':
      if (!DATE.test(s) || !toInstant(s)) return fail(`${label} must be a date, like 2026-01-31.`);
      return ok(s);
    case 'datetime': {
      const instant = toInstant(s);
      if (!instant) return fail(`${label} must be a date and time, like 2026-01-31T14:30.`);
      // A browser's datetime-local has no zone: it is kept as the person's local time, as posted.
      return ok(NAIVE_DATETIME.test(s) ? s.replace(' ', 'T') : new Date(instant).toISOString());
    }
    case 'select':
      if (!f.options!.includes(s)) return fail(`${label} must be one of: ${listed(f.options!)}.`);
      return ok(s);
    default:
      return text(f, label, typeof one === 'string' ? one : s);
  }
}

/** text, email, url, tel: the format, the length in characters, the pattern. */
function text(f: Field, label: string, value: string): Coerced {
  let v = f.type === 'text' ? value : value.trim();
  if (f.type === 'email' && (v.length > 320 || !EMAIL.test(v)))
    return fail(`${label} must be an e-mail address, like name@example.com.`);
  if (f.type === 'url') {
    let url: URL | null = null;
    try {
      url = new URL(v);
    } catch {
      // not a URL
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      return fail(`${label} must be a web address starting with http:// or https://.`);
    v = url.toString();
  }
  if (f.type === 'tel') {
    const digits = v.replace(/\D/g, '').length;
    if (!TEL.test(v) || digits < 3 || digits > 20) return fail(`${label} must be a phone number.`);
  }
  const length = [...v].length;
  if (f.min !== undefined && length < f.min) return fail(`${label} must be at least ${f.min} characters.`);
  if (f.max !== undefined && length > f.max) return fail(`${label} must be at most ${f.max} characters.`);
  if (f.pattern !== undefined && !matchesPattern(f.pattern, v)) return fail(`${label} is not in the expected format.`);
  return ok(v);
}

function acceptsType(accept: string[], contentType: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return accept.some((a) => {
    const want = a.toLowerCase();
    return want.endsWith('/*') ? type.startsWith(want.slice(0, -1)) : type === want;
  });
}

export type SchemaInput<F extends { field: string; contentType: string }> = {
  fields: Field[];
  unknownFields: UnknownFieldsPolicy;
  payload: Record<string, Value>;
  files: F[];
};

export type SchemaOutcome<F> = { payload: Record<string, Value>; files: F[]; errors: FieldErrors };

/**
 * A post checked against the form's schema: on success the payload with each schema field typed
 * (numbers, booleans, dates; absent optional fields left out, an unchecked boolean false) and the files
 * it keeps; otherwise the errors per field name. A form without a schema keeps everything as posted.
 */
export function applySchema<F extends { field: string; contentType: string }>(input: SchemaInput<F>): SchemaOutcome<F> {
  const { fields, payload } = input;
  if (!fields.length) return { payload, files: input.files, errors: {} };
  const problems = new Map<string, string[]>();
  const add = (name: string, message: string) => problems.set(name, [...(problems.get(name) ?? []), message]);
  const typed: Record<string, Value> = {};
  const known = new Set(fields.map((f) => f.name));

  for (const f of fields) {
    const label = f.label ?? f.name;
    const raw = own(payload, f.name);
    if (f.type === 'file') {
      const files = input.files.filter((x) => x.field === f.name);
      if (!isEmpty(raw)) add(f.name, `${label} must be a file upload.`);
      if (f.required && !files.length) add(f.name, `${label} is required: choose a file.`);
      if (files.length > (f.max_files ?? 1))
        add(f.name, `${label} takes at most ${f.max_files ?? 1} file${(f.max_files ?? 1) === 1 ? '' : 's'}.`);
      const wrong = f.accept ? files.filter((x) => !acceptsType(f.accept!, x.contentType)) : [];
      if (wrong.length) add(f.name, `${label} must be a file of type ${f.accept!.join(', ')}.`);
      continue;
    }
    if (isEmpty(raw)) {
      if (f.required) add(f.name, f.type === 'boolean' ? `${label} must be checked.` : `${label} is required.`);
      else if (f.type === 'boolean') typed[f.name] = false;
      else if (raw !== undefined) typed[f.name] = f.type === 'text' ? raw : null;
      continue;
    }
    const result = coerce(f, label, raw);
    if (result.ok) typed[f.name] = result.value;
    else add(f.name, result.message);
  }

  for (const [name, value] of Object.entries(payload)) {
    if (known.has(name)) continue;
    if (input.unknownFields === 'reject') add(name, `This form has no field named "${name}".`);
    else if (input.unknownFields === 'keep') typed[name] = value;
  }
  const files = input.files.filter((x) => {
    if (known.has(x.field)) return true;
    if (input.unknownFields === 'reject') add(x.field, `This form has no field named "${x.field}".`);
    return input.unknownFields === 'keep';
  });
  // A file field's files whose field is not of type file (a file posted to a text field).
  for (const x of files) {
    const f = fields.find((field) => field.name === x.field);
    if (f && f.type !== 'file' && !problems.has(f.name)) add(f.name, `${f.label ?? f.name} takes text, not a file.`);
  }
  return { payload: typed, files, errors: Object.fromEntries(problems) };
}

/**
 * The export's columns: the schema's fields (files aside: they have `_files`) in its order, then the names
 * the form learned that the schema does not have. Headers are the labels, unless two would clash.
 */
export function exportColumns(fields: Field[], learned: string[]): { names: string[]; headers: string[] } {
  const schema = fields.filter((f) => f.type !== 'file');
  const inSchema = new Set(fields.map((f) => f.name));
  const names = [...schema.map((f) => f.name), ...learned.filter((n) => !inSchema.has(n))];
  const labels = [...schema.map((f) => f.label ?? f.name), ...names.slice(schema.length)];
  const counts = new Map<string, number>();
  for (const l of labels) counts.set(l, (counts.get(l) ?? 0) + 1);
  return { names, headers: labels.map((l, i) => (counts.get(l)! > 1 ? names[i]! : l)) };
}

export type Sample = { payload: Record<string, Value>; fileFields: string[] };

/** Distinct answers at most this many, over at least SELECT_MIN_SAMPLES posts, suggest a select. */
const SELECT_MAX_OPTIONS = 10;
const SELECT_MIN_SAMPLES = 20;

/**
 * A schema proposed from stored posts, fields in `order` (first seen first): each field's type is the
 * one every value seen has (numbers with a fraction → number, a few repeated answers → select, lists →
 * multiselect, anything mixed → text); it is required when every post had it filled in.
 */
export function suggestSchema(samples: Sample[], order: string[]): Field[] {
  const names = [...order];
  for (const s of samples)
    for (const n of [...Object.keys(s.payload), ...s.fileFields]) if (!names.includes(n)) names.push(n);
  return names
    .filter((name) => !name.startsWith('_'))
    .map((name): Field | null => {
      const filled = samples.filter((s) => s.fileFields.includes(name) || !isEmpty(own(s.payload, name)));
      if (!filled.length) return null;
      const required = filled.length === samples.length;
      if (filled.some((s) => s.fileFields.includes(name)))
        return {
          name,
          type: 'file',
          required,
          max_files: Math.max(...filled.map((s) => s.fileFields.filter((n) => n === name).length)),
        };
      return { name, required, ...inferType(filled.map((s) => own(s.payload, name))) };
    })
    .filter((f): f is Field => f !== null);
}

function inferType(values: Value[]): Pick<Field, 'type' | 'options'> {
  if (values.some(Array.isArray)) {
    const options = [...new Set(values.flatMap((v) => (Array.isArray(v) ? v : [v])).map(String))];
    return options.length <= SELECT_MAX_OPTIONS * 2 ? { type: 'multiselect', options } : { type: 'text' };
  }
  const parsed = values.map((v) => parseField('', v));
  const all = (type: string) => parsed.every((p) => p.type === type);
  if (all('number')) return { type: parsed.every((p) => Number.isInteger(p.value)) ? 'integer' : 'number' };
  if (all('boolean')) return { type: 'boolean' };
  if (all('date')) return { type: values.every((v) => DATE.test(String(v).trim())) ? 'date' : 'datetime' };
  if (all('email')) return { type: 'email' };
  if (all('url')) return { type: 'url' };
  const strings = values.map((v) => String(v).trim());
  if (strings.every((s) => TEL.test(s) && /^\+|\d[ ().-]\d/.test(s) && s.replace(/\D/g, '').length >= 6))
    return { type: 'tel' };
  const distinct = [...new Set(strings)];
  if (
    values.length >= SELECT_MIN_SAMPLES &&
    distinct.length <= SELECT_MAX_OPTIONS &&
    strings.every((s) => s.length <= 200)
  )
    return { type: 'select', options: distinct.sort() };
  return { type: 'text' };
}
