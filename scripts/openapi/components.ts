import { readdirSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { extendApi } from '@anatine/zod-openapi';
import { isZodType } from '@ts-rest/core';
import type { z } from 'zod';
import { dropCoercedNullable, eachSchema, hasDefaultedProperty, schemaOf, type Json } from './schema-repairs.ts';

/**
 * Named component schemas. Every schema a contract module exports (an object, union, intersection or enum)
 * is published under its export name and referenced by `$ref` wherever the routes use that very schema;
 * a schema derived at the use site (`.extend()`, `.describe()`) is a different one and stays inline. So a
 * field added to a schema changes its component, and a schema newly exported is named with no edit here.
 * In a request, a schema with a defaulted property stays inline instead (see `extract`).
 */

/** Export names that read as something else to integrators (and as the SDK already calls them). */
const RENAMED: Record<string, string> = {
  SubmissionListItem: 'Submission',
  TokenMetadata: 'Token',
};

/** Carried by a named zod schema into every OpenAPI schema generated from it, then replaced by `$ref`. */
const MARK = 'x-intake-component';

/** The name of the contract schema an OpenAPI schema was generated from, if it is a named one. */
export const componentMark = (schema: unknown): string | undefined => {
  const name = (schema as Json | undefined)?.[MARK];
  return typeof name === 'string' ? name : undefined;
};

export type Context = 'input' | 'output';

const OVERRIDABLE = new Set(['nullable', 'description', 'default']);

const NAMEABLE = new Set(['ZodObject', 'ZodUnion', 'ZodDiscriminatedUnion', 'ZodIntersection', 'ZodEnum']);

function nameable(type: z.ZodTypeAny): boolean {
  const def = type._def as { typeName: string; schema?: z.ZodTypeAny };
  if (def.typeName === 'ZodEffects') return def.schema !== undefined && nameable(def.schema);
  return NAMEABLE.has(def.typeName);
}

/** The contract modules' exported schemas by component name, in file and export order. */
async function contractSchemas(): Promise<Map<string, z.ZodTypeAny>> {
  const dir = new URL('../../contract/', import.meta.url);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort();
  const named = new Map<string, z.ZodTypeAny>();
  const seen = new Set<unknown>();
  for (const file of files) {
    const module = (await import(new URL(file, dir).href)) as Record<string, unknown>;
    for (const [exportName, value] of Object.entries(module)) {
      if (!/^[A-Z][A-Za-z0-9]*$/.test(exportName) || !isZodType(value) || !nameable(value) || seen.has(value)) continue;
      const name = RENAMED[exportName] ?? exportName;
      // Two modules exporting different schemas by one name: the first keeps it, the other stays inline.
      if (named.has(name)) continue;
      seen.add(value);
      named.set(name, value);
    }
  }
  return named;
}

export const NAMED_SCHEMAS = await contractSchemas();
for (const [name, schema] of NAMED_SCHEMAS) extendApi(schema, { [MARK]: name } as Parameters<typeof extendApi>[1]);

/** The schema-valued children of a schema, as [holder, key] pairs, so they can be replaced in place. */
function childSlots(s: Json): [Json | unknown[], string | number][] {
  const slots: [Json | unknown[], string | number][] = [];
  for (const key of ['items', 'not', 'additionalProperties'])
    if (s[key] && typeof s[key] === 'object') slots.push([s, key]);
  for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems']) {
    const list = s[key] as unknown[] | undefined;
    if (Array.isArray(list)) list.forEach((_, i) => slots.push([list, i]));
  }
  const props = s.properties as Json | undefined;
  if (props) for (const key of Object.keys(props)) slots.push([props, key]);
  return slots;
}

const get = (holder: Json | unknown[], key: string | number) => (holder as Record<string | number, unknown>)[key];
const set = (holder: Json | unknown[], key: string | number, value: unknown) => {
  (holder as Record<string | number, unknown>)[key] = value;
};

export class Components {
  readonly schemas = new Map<string, Json>();
  readonly requestBodies = new Map<string, Json>();
  /** Names used in each context; a schema whose request shape differs from its answer's gets `…Input` for the request. */
  private readonly contexts = new Map<string, Set<Context>>();
  private readonly canonical = new Map<string, Json>();

  /** First pass: note where each named schema is used. */
  note(schema: unknown, context: Context): void {
    eachSchema(schema, (s) => {
      const name = s[MARK];
      if (typeof name !== 'string') return;
      const set = this.contexts.get(name) ?? new Set<Context>();
      set.add(context);
      this.contexts.set(name, set);
    });
  }

  private canonicalOf(name: string, context: Context): Json {
    const key = `${context}:${name}`;
    let schema = this.canonical.get(key);
    if (!schema) {
      const type = NAMED_SCHEMAS.get(name)!;
      schema = schemaOf(type, context === 'output');
      dropCoercedNullable(type, schema);
      this.canonical.set(key, schema);
    }
    return schema;
  }

  private componentName(name: string, context: Context): string {
    if (context === 'output') return name;
    const usedForOutput = this.contexts.get(name)?.has('output');
    return usedForOutput && !isDeepStrictEqual(this.canonicalOf(name, 'input'), this.canonicalOf(name, 'output'))
      ? `${name}Input`
      : name;
  }

  /**
   * Second pass: the schema with every named schema in it replaced by its `$ref` (registering the component).
   * In a request, a named schema with a defaulted property stays inline: generators (openapi-typescript at its
   * defaults) type a defaulted property of a component as always present, true of an answer only, and
   * optional in a request body.
   */
  extract(schema: Json, context: Context): Json {
    const name = schema[MARK];
    const canonical = typeof name === 'string' && NAMED_SCHEMAS.has(name) ? this.canonicalOf(name, context) : undefined;
    if (typeof name === 'string' && canonical && !(context === 'input' && hasDefaultedProperty(canonical))) {
      // The use may add what a wrapper adds (`.nullable()`, `.default()`); anything else is another schema.
      const same =
        Object.entries(canonical).every(([k, v]) => OVERRIDABLE.has(k) || isDeepStrictEqual(v, schema[k])) &&
        Object.keys(schema).every((k) => k in canonical || OVERRIDABLE.has(k));
      if (same) {
        const ref = this.register(this.componentName(name, context), canonical, context);
        const extras = Object.fromEntries(
          Object.entries(schema).filter(([k, v]) => OVERRIDABLE.has(k) && !isDeepStrictEqual(canonical[k], v)),
        );
        return { $ref: ref, ...extras };
      }
    }
    // New containers, so replacing a child never reaches into a schema shared with another use.
    const copy: Json = { ...schema };
    delete copy[MARK];
    if (copy.properties) copy.properties = { ...(copy.properties as Json) };
    for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems'])
      if (Array.isArray(copy[key])) copy[key] = [...(copy[key] as unknown[])];
    for (const [holder, key] of childSlots(copy)) {
      set(holder, key, this.extract(get(holder, key) as Json, context));
    }
    // A discriminator selects among named schemas only; with a member inline, `oneOf` alone says it.
    if (copy.discriminator && (copy.oneOf as Json[] | undefined)?.some((member) => !('$ref' in member)))
      delete copy.discriminator;
    return copy;
  }

  private register(name: string, canonical: Json, context: Context): string {
    if (!this.schemas.has(name)) {
      this.schemas.set(name, {}); // claimed first: a schema that contains itself refers to itself
      const content: Json = { ...canonical };
      delete content[MARK];
      this.schemas.set(name, this.extract(content, context));
    }
    return `#/components/schemas/${name}`;
  }

  /** Names a top-level body that is no named schema (`CreateFormResponse`); the same name for a different schema gets a number. */
  name(candidate: string, schema: Json): Json {
    if ('$ref' in schema) return schema;
    let name = candidate;
    for (let n = 2; this.schemas.has(name) && !isDeepStrictEqual(this.schemas.get(name), schema); n++)
      name = `${candidate}${n}`;
    this.schemas.set(name, schema);
    return { $ref: `#/components/schemas/${name}` };
  }

  /**
   * Names a whole request body (`components.requestBodies`) whose schema has a defaulted property: its schema
   * stays inline there, where generators read a default as what the server assumes when the property is left out.
   */
  nameRequestBody(candidate: string, body: Json): Json {
    let name = candidate;
    for (let n = 2; this.requestBodies.has(name) && !isDeepStrictEqual(this.requestBodies.get(name), body); n++)
      name = `${candidate}${n}`;
    this.requestBodies.set(name, body);
    return { $ref: `#/components/requestBodies/${name}` };
  }

  /** Components in name order, so a new one lands in a predictable place in the committed file. */
  sorted(map: Map<string, Json> = this.schemas): Json {
    return Object.fromEntries([...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}
