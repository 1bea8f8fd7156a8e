import { generateSchema } from '@anatine/zod-openapi';
import { isZodType } from '@ts-rest/core';
import type { z } from 'zod';

export type Json = Record<string, unknown>;

/** Calls `visit` on a schema and every schema nested in it (not through `$ref`). */
export function eachSchema(schema: unknown, visit: (s: Json) => void): void {
  if (!schema || typeof schema !== 'object') return;
  const s = schema as Json;
  visit(s);
  for (const key of ['items', 'not', 'additionalProperties']) eachSchema(s[key], visit);
  for (const key of ['allOf', 'anyOf', 'oneOf'])
    for (const sub of (s[key] as unknown[] | undefined) ?? []) eachSchema(sub, visit);
  for (const sub of Object.values((s.properties as Json | undefined) ?? {})) eachSchema(sub, visit);
}

/** Renames a key in place, keeping key order (and so the generated text) stable. */
function renameKey(obj: Json, from: string, to: string): void {
  const entries = Object.entries(obj).map(([k, v]) => [k === from ? to : k, v] as const);
  for (const key of Object.keys(obj)) delete obj[key];
  Object.assign(obj, Object.fromEntries(entries));
}

/** Repairs what the zod → OpenAPI 3.0 conversion gets wrong for any schema. */
export function normalizeSchema(s: Json): void {
  // A zod union accepts a value when any member does; `oneOf` would reject a value two members accept
  // (a literal and a plain string, a specific and a generic error body). Discriminated unions stay oneOf.
  if (Array.isArray(s.oneOf) && !s.discriminator) renameKey(s, 'oneOf', 'anyOf');
  // `z.unknown()` / `z.any()` come out as a bare `{ nullable: true }`; with no `type` beside it
  // `nullable` is invalid, and a typeless schema admits every value (null included) anyway.
  const typed = ['type', '$ref', 'allOf', 'anyOf', 'oneOf', 'not'].some((k) => k in s);
  if (!typed && s.nullable === true) {
    delete s.nullable;
    if (!s.description) s.description = 'Any JSON value.';
  }
}

function zodDef(type: z.ZodTypeAny): Json & { typeName: string } {
  return type._def as Json & { typeName: string };
}

type Visit = (inner: z.ZodTypeAny, schema: Json, declaredNullable: boolean) => void;

/**
 * Walks a zod schema beside the OpenAPI schema generated from it (not through `$ref`), calling `visit`
 * on each pair with the zod type unwrapped of optional, nullable, default, brand and refinements.
 */
function eachPair(type: unknown, schema: unknown, visit: Visit): void {
  if (!isZodType(type) || !schema || typeof schema !== 'object' || '$ref' in schema) return;
  const s = schema as Json;
  let inner: z.ZodTypeAny = type;
  let declaredNullable = false;
  for (;;) {
    const def = zodDef(inner);
    if (def.typeName === 'ZodNullable') declaredNullable = true;
    if (['ZodOptional', 'ZodNullable', 'ZodDefault'].includes(def.typeName)) inner = def.innerType as z.ZodTypeAny;
    else if (def.typeName === 'ZodBranded') inner = def.type as z.ZodTypeAny;
    else if (def.typeName === 'ZodEffects' && (def.effect as Json).type !== 'preprocess')
      inner = def.schema as z.ZodTypeAny;
    else break;
  }
  visit(inner, s, declaredNullable);
  const def = zodDef(inner);
  const union = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  switch (def.typeName) {
    case 'ZodObject': {
      const properties = (s.properties as Json | undefined) ?? {};
      for (const [key, value] of Object.entries((inner as z.AnyZodObject).shape))
        eachPair(value, properties[key], visit);
      break;
    }
    case 'ZodArray':
      eachPair(def.type, s.items, visit);
      break;
    case 'ZodRecord':
      eachPair(def.valueType, s.additionalProperties, visit);
      break;
    case 'ZodIntersection':
      eachPair(def.left, (s.allOf as unknown[] | undefined)?.[0], visit);
      eachPair(def.right, (s.allOf as unknown[] | undefined)?.[1], visit);
      break;
    case 'ZodUnion':
    case 'ZodDiscriminatedUnion':
      [...(def.options as Iterable<unknown>)].forEach((option, i) => eachPair(option, union?.[i], visit));
      break;
  }
}

/**
 * The generator decides `nullable` by asking the schema to parse `null`; a `z.coerce.*` schema turns
 * null into 0 / "null" / false and so is published as nullable. Drop `nullable` where the zod type never declared it.
 */
export function dropCoercedNullable(type: unknown, schema: unknown): void {
  eachPair(type, schema, (inner, s, declaredNullable) => {
    if (zodDef(inner).coerce === true && !declaredNullable) delete s.nullable;
  });
}

/** A property the parsed value always has: one with a `.default()` (under nullable, brand or refinements). */
function alwaysParsed(type: z.ZodTypeAny): boolean {
  const def = zodDef(type);
  if (def.typeName === 'ZodDefault') return true;
  if (def.typeName === 'ZodNullable') return alwaysParsed(def.innerType as z.ZodTypeAny);
  if (def.typeName === 'ZodBranded') return alwaysParsed(def.type as z.ZodTypeAny);
  if (def.typeName === 'ZodEffects' && (def.effect as Json).type !== 'preprocess')
    return alwaysParsed(def.schema as z.ZodTypeAny);
  return false;
}

/**
 * An answer is the parsed value, so a property with a `.default()` is always in it: `required`. (The
 * generator leaves it out in both directions, right for a request only.)
 */
export function requireDefaulted(type: unknown, schema: unknown): void {
  eachPair(type, schema, (inner, s) => {
    if (zodDef(inner).typeName !== 'ZodObject' || !s.properties) return;
    const shape = (inner as z.AnyZodObject).shape as Record<string, z.ZodTypeAny>;
    const required = new Set((s.required as string[] | undefined) ?? []);
    for (const [key, value] of Object.entries(shape))
      if (key in (s.properties as Json) && alwaysParsed(value)) required.add(key);
    const order = [...Object.keys(s.properties as Json), ...required];
    if (required.size) s.required = [...new Set(order)].filter((key) => required.has(key));
  });
}

/** Whether a schema has a property with a `default` (not looking through `$ref`). */
export function hasDefaultedProperty(schema: unknown): boolean {
  let found = false;
  eachSchema(schema, (s) => {
    for (const property of Object.values((s.properties as Json | undefined) ?? {}))
      if (property && typeof property === 'object' && 'default' in property) found = true;
  });
  return found;
}

/** A zod schema as an OpenAPI schema, repaired as every route's are. */
export function schemaOf(type: z.ZodTypeAny, useOutput = true): Json {
  const schema = generateSchema(type, useOutput) as Json;
  eachSchema(schema, normalizeSchema);
  if (useOutput) requireDefaulted(type, schema);
  return schema;
}

export const jsonContent = (type: z.ZodTypeAny): Json => ({ 'application/json': { schema: schemaOf(type) } });
