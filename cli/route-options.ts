import type { AppRoute } from '@ts-rest/core';
import { type Command, Option } from 'commander';
import { z } from 'zod';
import { objectShape, unwrapSchema } from '../contract/schema-shape.ts';
import { UsageError } from './exit-status.ts';

/**
 * A contract route's inputs as command-line arguments (docs/cli.md). Query and body fields are options
 * (`--per-page 50`, `--settings '{"ai_threshold":0.9}'`); path parameters that scope a command too (`--form
 * <id>`, `--webhook <id>`); the record a command acts on is positional. All-positional path parameters, in
 * path order, are also accepted.
 */

/** Path parameters given as options rather than positional arguments, where they scope the command. */
const SCOPES: Record<string, string> = { form: 'the form (frm_…)', webhook: 'the webhook (wh_…)' };

export const pathParamNames = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);

/**
 * The path parameters a command takes as options: `form` and `webhook`, except the one its group is about
 * (`record`): `intake forms publish frm_…`, `intake webhooks get wh_… --form frm_…`.
 */
export const scopeParams = (names: string[], record?: string) => names.filter((n) => SCOPES[n] && n !== record);

type Kind = 'string' | 'number' | 'boolean' | 'list' | 'json';

const isScalar = (s: z.ZodTypeAny) =>
  s instanceof z.ZodString || s instanceof z.ZodEnum || s instanceof z.ZodLiteral || s instanceof z.ZodNumber;

function kindOf(s: z.ZodTypeAny): Kind {
  const inner = unwrapSchema(s);
  // A value or a list of them (a repeatable query such as `tag`): a list.
  if (inner instanceof z.ZodUnion) {
    const kinds = (inner.options as z.ZodTypeAny[]).map(kindOf);
    return kinds.every((k) => k === 'string' || k === 'list') && kinds.includes('list') ? 'list' : 'json';
  }
  if (inner instanceof z.ZodNumber) return 'number';
  if (inner instanceof z.ZodBoolean) return 'boolean';
  // A list of scalars is a list option; a list of objects (rule actions, webhook filters) is JSON.
  if (inner instanceof z.ZodArray) return isScalar(unwrapSchema(inner.element as z.ZodTypeAny)) ? 'list' : 'json';
  if (inner instanceof z.ZodString || inner instanceof z.ZodEnum || inner instanceof z.ZodLiteral) return 'string';
  return 'json';
}

/** A field that takes null, other than a boolean or JSON (which say null themselves): `--no-<field>` sends it. */
const clearable = (s: z.ZodTypeAny, kind: Kind) => kind !== 'boolean' && kind !== 'json' && s.safeParse(null).success;

const flag = (key: string) => key.replace(/_/g, '-');
/** Commander's attribute name of a field's option: `per_page` and `if-match` → `perPage`, `ifMatch`. */
const camel = (key: string) => key.replace(/[_-]([a-z])/g, (_, c: string) => c.toUpperCase());

/** A list option's values: comma-separated, and the option may be repeated (`--tag a --tag b`, `--tag a,b`). */
export const collectList = (raw: string, previous: string[] | undefined): string[] => [
  ...(previous ?? []),
  ...raw
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean),
];

function parseValue(kind: Kind, raw: string, key: string): unknown {
  if (kind === 'number') {
    const n = Number(raw);
    if (raw.trim() === '' || Number.isNaN(n)) throw new UsageError(`--${flag(key)} must be a number`);
    return n;
  }
  if (kind === 'list') return collectList(raw, undefined);
  if (kind === 'json') {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      throw new UsageError(`--${flag(key)} must be JSON, e.g. '{"key":"value"}'`);
    }
  }
  return raw;
}
/**
 * Declares a route's path parameters on `cmd`: `--form`/`--webhook` options for the scoping ones, a
 * positional argument for each other one. Excess positionals are allowed so that the all-positional
 * form still parses; `pathParams` sorts them out.
 */
export function addPathParams(cmd: Command, names: string[], scoped: string[]): void {
  for (const n of names) {
    if (scoped.includes(n))
      cmd.option(`--${n} <id>`, `${SCOPES[n]} (earlier versions took it as a positional argument, which still works)`);
    else cmd.argument(`<${flag(n)}>`);
  }
  if (!scoped.length) return;
  cmd.allowExcessArguments(true);
  cmd.usage(
    [
      ...scoped.map((n) => `--${n} <id>`),
      '[options]',
      ...names.filter((n) => !scoped.includes(n)).map((n) => `<${flag(n)}>`),
    ].join(' '),
  );
}

/**
 * The path parameters from the positional arguments and the `--form`/`--webhook` options: all positional in
 * path order, or the scoping ones as options. A parameter given both ways with different values is a usage error.
 */
export function pathParams(
  names: string[],
  scoped: string[],
  positional: string[],
  opts: Record<string, unknown>,
): Record<string, string> {
  const asOption = (n: string) => (scoped.includes(n) && typeof opts[n] === 'string' ? (opts[n] as string) : undefined);
  const given = names.filter((n) => asOption(n) !== undefined);
  if (positional.length === names.length) {
    names.forEach((n, i) => {
      const option = asOption(n);
      if (option !== undefined && option !== positional[i]) {
        throw new UsageError(
          `the ${n} is given twice, as the argument ${positional[i]} and as --${n} ${option}: give it once, with --${n}`,
        );
      }
    });
    return Object.fromEntries(names.map((n, i) => [n, positional[i]!]));
  }
  if (positional.length === names.length - given.length) {
    const rest = [...positional];
    return Object.fromEntries(names.map((n) => [n, asOption(n) ?? rest.shift()!]));
  }
  const missing = scoped.filter((n) => asOption(n) === undefined).map((n) => `'--${n} <id>'`);
  if (positional.length < names.length - given.length && missing.length) {
    throw new UsageError(`required option${missing.length > 1 ? 's' : ''} ${missing.join(' and ')} not specified`);
  }
  throw new UsageError(
    `expected ${names.length - given.length} argument${names.length - given.length === 1 ? '' : 's'} (${names
      .filter((n) => asOption(n) === undefined)
      .map(flag)
      .join(', ')}), got ${positional.length}`,
  );
}

/**
 * Adds a route's query and body fields as options (body fields the contract requires are mandatory), and its
 * request headers (`--if-match <value>`).
 */
export function addFieldOptions(cmd: Command, route: AppRoute, scoped: string[]): void {
  const seen = new Set<string>(scoped);
  const add = (schema: unknown, required: boolean) => {
    for (const [key, s] of Object.entries(objectShape(schema))) {
      if (seen.has(key)) continue;
      seen.add(key);
      const kind = kindOf(s);
      const desc = [
        s.description ?? unwrapSchema(s).description ?? '',
        kind === 'list' ? '(comma-separated, or repeat the option)' : kind === 'json' ? '(JSON)' : '',
      ]
        .filter(Boolean)
        .join(' ');
      const inner = unwrapSchema(s);
      const option =
        kind === 'boolean'
          ? new Option(`--${flag(key)}`, desc)
          : new Option(`--${flag(key)} <${kind === 'number' ? 'n' : 'value'}>`, desc);
      if (inner instanceof z.ZodEnum) option.choices(inner.options as string[]);
      if (kind === 'list') option.argParser(collectList);
      if (required && !s.isOptional()) option.makeOptionMandatory();
      cmd.addOption(option);
      if (kind === 'boolean') cmd.addOption(new Option(`--no-${flag(key)}`).hideHelp());
      else if (clearable(s, kind)) cmd.addOption(new Option(`--no-${flag(key)}`, `Clear ${key} (send null).`));
    }
  };
  add(route.query, false);
  if ('body' in route) add(route.body, true);
  add(route.headers, false);
}

export type RequestParts = {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: Record<string, unknown> | undefined;
  headers: Record<string, string>;
};

/** The request a command line makes: path parameters, then query and body fields from the options. */
export function requestParts(
  route: AppRoute,
  scoped: string[],
  positional: string[],
  opts: Record<string, unknown>,
): RequestParts {
  const params = pathParams(pathParamNames(route.path), scoped, positional, opts);
  const pick = (schema: unknown) => {
    const out: Record<string, unknown> = {};
    for (const [key, s] of Object.entries(objectShape(schema))) {
      if (scoped.includes(key)) continue;
      const raw = opts[camel(key)];
      if (raw === undefined) continue;
      const kind = kindOf(s);
      if (raw === false && clearable(s, kind)) out[key] = null;
      else
        out[key] =
          kind === 'boolean' || (kind === 'list' && Array.isArray(raw)) ? raw : parseValue(kind, String(raw), key);
    }
    return out;
  };
  const hasBody = 'body' in route && route.body && typeof (route.body as z.ZodTypeAny).safeParse === 'function';
  return {
    params,
    query: pick(route.query),
    body: hasBody ? pick(route.body) : undefined,
    headers: pick(route.headers) as Record<string, string>,
  };
}
