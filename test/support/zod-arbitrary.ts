import fc from 'fast-check';
import { z } from 'zod';

/**
 * fast-check arbitraries from the contract's zod schemas: values the schema accepts, mixed (with
 * `hostility`) with what a careless or hostile client sends instead — NUL characters, unpaired surrogates,
 * impossible dates, huge and odd numbers, wrong types, prototype keys, long strings.
 */
export const hostileString = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfff',
    '',
    ' ',
    '2024-02-30',
    '0000-01-01',
    '9999-99-99T99:99:99Z',
    '__proto__',
    'constructor',
    '../../etc/passwd',
    "'; drop table forms; --",
    '%00',
    '\u202e',
    '\ufeff',
    'frm_00000000000000000000000000',
    'subm_',
    '(a+)+$',
    '=cmd|"/C calc"!A0',
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constant('x'.repeat(70_000)),
);

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom(null, true, false, 0, -1, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 1.5, [], {}, [[[[]]]]),
  fc.integer(),
  fc.double(),
  fc.constant(JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}')),
  fc.array(hostileString, { maxLength: 5 }),
);

type Def = { typeName: string; [k: string]: unknown };
const defOf = (schema: z.ZodTypeAny) => schema._def as Def;

/** A value for `schema`; with probability `hostility` (at every level) a hostile one instead. */
export function arbitraryFor(schema: z.ZodTypeAny, hostility = 0.2): fc.Arbitrary<unknown> {
  const valid = validFor(schema, hostility);
  if (hostility <= 0) return valid;
  const weight = Math.max(1, Math.round((1 - hostility) * 10));
  return fc.oneof({ arbitrary: valid, weight }, { arbitrary: hostileValue, weight: Math.max(1, 10 - weight) });
}

function validFor(schema: z.ZodTypeAny, hostility: number): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  switch (def.typeName) {
    case 'ZodString': {
      const checks = (def.checks as Array<{ kind: string; value?: number }>) ?? [];
      const max = checks.find((c) => c.kind === 'max')?.value ?? 60;
      const min = checks.find((c) => c.kind === 'min')?.value ?? 0;
      if (checks.some((c) => c.kind === 'email')) return fc.emailAddress();
      if (checks.some((c) => c.kind === 'url')) return fc.webUrl();
      if (checks.some((c) => c.kind === 'datetime'))
        return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
      return fc.string({ minLength: min, maxLength: Math.min(max, 60) });
    }
    case 'ZodNumber': {
      const checks = (def.checks as Array<{ kind: string; value?: number }>) ?? [];
      const min = checks.find((c) => c.kind === 'min')?.value ?? -1000;
      const max = checks.find((c) => c.kind === 'max')?.value ?? 1000;
      return checks.some((c) => c.kind === 'int')
        ? fc.integer({ min, max: Math.max(min, max) })
        : fc.double({ min, max, noNaN: true });
    }
    case 'ZodBoolean':
      return fc.boolean();
    case 'ZodLiteral':
      return fc.constant(def.value);
    case 'ZodEnum':
      return fc.constantFrom(...(def.values as string[]));
    case 'ZodNativeEnum':
      return fc.constantFrom(...Object.values(def.values as object));
    case 'ZodArray': {
      const max = (def.maxLength as { value: number } | null)?.value ?? 5;
      const min = (def.minLength as { value: number } | null)?.value ?? 0;
      return fc.array(arbitraryFor(def.type as z.ZodTypeAny, hostility), {
        minLength: min,
        maxLength: Math.min(max, 6),
      });
    }
    case 'ZodObject': {
      const shape = (schema as z.ZodObject<z.ZodRawShape>).shape;
      const entries = Object.entries(shape).map(([k, v]) => [k, arbitraryFor(v as z.ZodTypeAny, hostility)] as const);
      return fc.record(Object.fromEntries(entries), { requiredKeys: [] });
    }
    case 'ZodRecord':
      return fc.dictionary(
        fc.oneof(fc.string({ maxLength: 20 }), hostileString),
        arbitraryFor(def.valueType as z.ZodTypeAny, hostility),
        { maxKeys: 5 },
      );
    case 'ZodOptional':
    case 'ZodNullable':
    case 'ZodDefault':
      return fc.option(arbitraryFor((def.innerType as z.ZodTypeAny) ?? schema, hostility), { nil: undefined });
    case 'ZodEffects':
      return arbitraryFor(def.schema as z.ZodTypeAny, hostility);
    case 'ZodUnion':
      return fc.oneof(...(def.options as z.ZodTypeAny[]).map((o) => arbitraryFor(o, hostility)));
    case 'ZodLazy':
      return fc.constant(null);
    default:
      // z.unknown(), z.any() and anything else: JSON of any shape.
      return fc.jsonValue({ maxDepth: 3 });
  }
}
