import { eachSchema, type Json } from './schema-repairs.ts';

/**
 * OpenAPI 3.1 schemas are JSON Schema: the zod converter writes 3.0's `nullable` and boolean
 * `exclusiveMinimum`, which 3.1 spells as a `"null"` type and a numeric bound.
 */
export function toJsonSchema(schema: Json): Json {
  eachSchema(schema, (s) => {
    for (const [flag, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (s[flag] === true) {
        s[flag] = s[bound];
        delete s[bound];
      } else if (s[flag] === false) delete s[flag];
    }
    if (s.nullable !== true) {
      delete s.nullable;
      return;
    }
    delete s.nullable;
    if (typeof s.type === 'string') {
      s.type = [s.type, 'null'];
      if (Array.isArray(s.enum) && !s.enum.includes(null)) s.enum = [...(s.enum as unknown[]), null];
    } else if (Array.isArray(s.anyOf)) {
      s.anyOf = [...(s.anyOf as unknown[]), { type: 'null' }];
    } else if ('$ref' in s || 'allOf' in s || 'oneOf' in s) {
      const { description, ...rest } = s;
      for (const key of Object.keys(s)) delete s[key];
      if (description !== undefined) s.description = description;
      s.anyOf = [rest, { type: 'null' }];
    }
  });
  return schema;
}
