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

/**
 * The generator decides `nullable` by asking the schema to parse `null`; a `z.coerce.*` schema turns
 * null into 0 / "null" / false and so is published as nullable. Walk the zod schema beside its OpenAPI
 * schema and drop `nullable` where the zod type never declared it.
 */
export function dropCoercedNullable(type: unknown, schema: unknown): void {
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
  const def = zodDef(inner);
  if (def.coerce === true && !declaredNullable) delete s.nullable;
  const union = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  switch (def.typeName) {
    case 'ZodObject': {
      const properties = (s.properties as Json | undefined) ?? {};
      for (const [key, value] of Object.entries((inner as z.AnyZodObject).shape))
        dropCoercedNullable(value, properties[key]);
      break;
    }
    case 'ZodArray':
      dropCoercedNullable(def.type, s.items);
      break;
    case 'ZodRecord':
      dropCoercedNullable(def.valueType, s.additionalProperties);
      break;
    case 'ZodIntersection':
      dropCoercedNullable(def.left, (s.allOf as unknown[] | undefined)?.[0]);
      dropCoercedNullable(def.right, (s.allOf as unknown[] | undefined)?.[1]);
      break;
    case 'ZodUnion':
    case 'ZodDiscriminatedUnion':
      [...(def.options as Iterable<unknown>)].forEach((option, i) => dropCoercedNullable(option, union?.[i]));
      break;
  }
}
/** A zod schema as an OpenAPI schema, repaired as every route's are. */
export function schemaOf(type: z.ZodTypeAny, useOutput = true): Json {
  const schema = generateSchema(type, useOutput) as Json;
  eachSchema(schema, normalizeSchema);
  return schema;
}

export const jsonContent = (type: z.ZodTypeAny): Json => ({ 'application/json': { schema: schemaOf(type) } });
