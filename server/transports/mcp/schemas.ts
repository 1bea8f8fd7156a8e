import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';

/**
 * Tool schemas as clients receive them in tools/list: the SDK's own conversion of the zod schemas, in the
 * dialect MCP takes when a schema declares none (JSON Schema 2020-12, since the 2025-11-25 revision).
 *
 * The SDK stamps `"$schema": "http://json-schema.org/draft-07/schema#"` on every schema, which a 2020-12
 * validator refuses to compile; declaring 2020-12 instead would break the SDK's own client, whose validator
 * is a draft-07 Ajv that knows no other meta-schema. So the schemas declare no dialect and use only keywords
 * that mean the same in draft-07 and 2020-12. A value the API takes as any JSON (submitted fields, a sent
 * body) is a `$ref` to `JsonValue`, which names the JSON types instead of leaving the value unconstrained.
 */

type JsonSchema = Record<string, unknown>;
export type ToolSchema = Tool['inputSchema'];

const JSON_VALUE_REF = '#/$defs/JsonValue';

/** Any JSON value, recursively: what a form may post as a field (lists and objects nest). */
const JSON_VALUE: JsonSchema = {
  description: 'Any JSON value: text, a number, a boolean, null, or a list or object of JSON values.',
  anyOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'null' },
    { type: 'array', items: { $ref: JSON_VALUE_REF } },
    { type: 'object', additionalProperties: { $ref: JSON_VALUE_REF } },
  ],
};

/** Keywords that say nothing of the value: a subschema of only these accepts any JSON. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);
/** Where a schema holds subschemas: one, a list of them, or a map of them. */
const ONE = new Set(['items', 'additionalProperties', 'propertyNames', 'contains', 'if', 'then', 'else']);
const LIST = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const MAP = new Set(['properties', 'patternProperties', 'dependentSchemas']);

const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The schema with each subschema that constrains nothing made a `JsonValue` (its annotations kept). */
function nameJsonValues(schema: JsonSchema, found: { any: boolean }): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ONE.has(key) && isSchema(value)) out[key] = subschema(value, found);
    else if (LIST.has(key) && Array.isArray(value))
      out[key] = value.map((v: unknown) => (isSchema(v) ? subschema(v, found) : v));
    else if (MAP.has(key) && isSchema(value))
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, v]) => [name, isSchema(v) ? subschema(v, found) : v]),
      );
    else out[key] = value;
  }
  return out;
}

function subschema(schema: JsonSchema, found: { any: boolean }): JsonSchema {
  if (!Object.keys(schema).every((k) => ANNOTATIONS.has(k))) return nameJsonValues(schema, found);
  found.any = true;
  return { $ref: JSON_VALUE_REF, ...schema };
}

/** A tool's input (`io: 'input'`) or output schema as published. */
export function publishedSchema(schema: z.ZodObject<z.ZodRawShape>, io: 'input' | 'output'): ToolSchema {
  const { $schema: _dialect, ...converted } = toJsonSchemaCompat(schema, { strictUnions: true, pipeStrategy: io });
  const found = { any: false };
  const named = nameJsonValues(converted, found);
  return { ...named, type: 'object', ...(found.any ? { $defs: { JsonValue: JSON_VALUE } } : {}) };
}
