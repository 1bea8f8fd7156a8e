import { z } from 'zod';

/**
 * Reading the contract's schemas, for what is generated from them (MCP tool inputs, CLI options): the type
 * under optional, nullable, default, refinement and transform wrappers, and the fields of an object schema.
 */

export function unwrapSchema(s: z.ZodTypeAny): z.ZodTypeAny {
  for (;;) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault)
      s = s._def.innerType as z.ZodTypeAny;
    else if (s instanceof z.ZodEffects) s = s._def.schema as z.ZodTypeAny;
    else return s;
  }
}

/** The fields of an object schema (through its wrappers); `{}` for anything else, a route's missing part included. */
export function objectShape(s: unknown): Record<string, z.ZodTypeAny> {
  if (!s || typeof (s as z.ZodTypeAny).safeParse !== 'function') return {};
  const inner = unwrapSchema(s as z.ZodTypeAny);
  return inner instanceof z.ZodObject ? (inner.shape as Record<string, z.ZodTypeAny>) : {};
}
