import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, makeTeam } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';
import { call } from '../support/mcp-tools.ts';

/**
 * Tool schemas as a client receives them from tools/list, read with a JSON Schema 2020-12 validator (the
 * dialect MCP 2025-11-25 takes when a schema declares none), in strict mode, with the usual formats.
 */

// Private webhook URLs allowed: a webhook is created below without a DNS lookup (no internet here).
const t = await startLiveTestApp({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' });
const clients: Client[] = [];
let token = '';
let tools: Tool[] = [];

async function connect(): Promise<Client> {
  const client = new Client({ name: 'intake-schema-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { requestInit: { headers: bearer(token) } }),
  );
  clients.push(client);
  return client;
}

beforeAll(async () => {
  token = (await makeTeam(t, { plan: 'team' })).token;
  tools = (await (await connect()).listTools()).tools;
});
afterAll(async () => {
  for (const c of clients) await c.close();
});

function strictAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  formats.default(ajv); // the formats MCP clients check (the SDK's own client adds the same plugin)
  return ajv;
}

type Schema = Record<string, unknown>;
const schemasOf = (tool: Tool): Array<[string, Schema]> =>
  tool.outputSchema
    ? [
        ['inputSchema', tool.inputSchema],
        ['outputSchema', tool.outputSchema],
      ]
    : [['inputSchema', tool.inputSchema]];

/** Keywords that say nothing of the value: a subschema of only these accepts anything. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);
/** Where a schema holds subschemas (one, a list of them, or a map of them). */
const ONE = ['items', 'additionalProperties', 'propertyNames', 'contains', 'if', 'then', 'else'];
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/** The JSON pointers of every subschema that constrains nothing (`{}`, or annotations only). */
function unconstrained(schema: unknown, at = '#'): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const s = schema as Schema;
  if (Object.keys(s).every((k) => ANNOTATIONS.has(k))) return [at];
  const found: string[] = [];
  for (const k of ONE) if (k in s) found.push(...unconstrained(s[k], `${at}/${k}`));
  for (const k of LIST)
    if (Array.isArray(s[k])) (s[k] as unknown[]).forEach((x, i) => found.push(...unconstrained(x, `${at}/${k}/${i}`)));
  for (const k of MAP)
    if (s[k] && typeof s[k] === 'object')
      for (const [name, x] of Object.entries(s[k] as Schema)) found.push(...unconstrained(x, `${at}/${k}/${name}`));
  return found;
}

describe('tool schemas under JSON Schema 2020-12', () => {
  it('every input and output schema compiles with Ajv2020 in strict mode, declaring no other dialect', async () => {
    const ajv = strictAjv();
    const failures: string[] = [];
    let compiled = 0;
    for (const tool of tools) {
      for (const [which, schema] of schemasOf(tool)) {
        if (schema.$schema !== undefined && schema.$schema !== 'https://json-schema.org/draft/2020-12/schema') {
          failures.push(`${tool.name} ${which}: declares ${String(schema.$schema)}`);
          continue;
        }
        try {
          ajv.compile(schema);
          compiled += 1;
        } catch (err) {
          failures.push(`${tool.name} ${which}: ${(err as Error).message}`);
        }
      }
      // Seconds of compiling would hold the server in this process too: its keep-alive sockets would close
      // late, just as the next test's client reuses one.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(failures).toEqual([]);
    expect(tools.length).toBeGreaterThan(50);
    expect(compiled).toBeGreaterThan(100);
  });

  it('no subschema accepts a value unconstrained', () => {
    const loose = tools.flatMap((tool) =>
      schemasOf(tool).flatMap(([which, schema]) => unconstrained(schema).map((at) => `${tool.name} ${which} ${at}`)),
    );
    expect(loose).toEqual([]);
  });

  it('real calls pass: arguments the input schema, answers the output schema; what the API refuses fails them', async () => {
    const ajv = strictAjv();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const validators = new Map<string, ValidateFunction>();
    const validator = (name: string, which: 'inputSchema' | 'outputSchema') => {
      const key = `${name} ${which}`;
      if (!validators.has(key)) validators.set(key, ajv.compile(byName.get(name)![which]!));
      return validators.get(key)!;
    };
    // Listed by this client too, so the SDK checks each answer against its output schema with its own (draft-07) Ajv.
    const client = await connect();
    await client.listTools();
    const checked = new Set<string>();
    const ok = async (name: string, args: Record<string, unknown>) => {
      const input = validator(name, 'inputSchema');
      expect(input(args), `${name} input: ${ajv.errorsText(input.errors)}`).toBe(true);
      const result = await call(client, name, args);
      expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
      if (byName.get(name)!.outputSchema) {
        const output = validator(name, 'outputSchema');
        expect(output(result.structuredContent), `${name} output: ${ajv.errorsText(output.errors)}`).toBe(true);
        checked.add(name);
      }
      return result.structuredContent as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    };

    const form = (await ok('create_form', { name: 'Schema check' })).data.id as string;
    await ok('publish_form', { form });
    await ok('get_form', { form });
    await ok('list_forms', { per_page: 10 });

    // Submitted values are any JSON (text, numbers, booleans, null, lists, nested objects), as a JSON post is.
    const fields = {
      email: 'ada@example.com',
      age: 36,
      subscribe: true,
      company: null,
      topics: ['billing', 'api'],
      address: { city: 'London', lines: ['12 Example Street'], floor: 2 },
    };
    const submission = (await ok('create_submission', { form, fields })).data.id as string;
    expect((await ok('get_submission', { form, submission })).data.payload).toMatchObject(fields);
    await ok('list_submissions', { form, per_page: 10 });
    await ok('update_submission', { form, submission, payload: { age: 37, note: { checked: true } } });

    // Rule trace: each condition's value as written, and what the submission holds.
    const when = {
      all: [
        { field: 'age', op: 'gte', value: 18 },
        { field: 'topics', op: 'in', value: ['api'] },
      ],
    };
    const rule = await ok('test_rules', {
      form,
      submission_id: submission,
      rules: [{ name: 'Adults', when, actions: [{ type: 'tag', add: ['adult'] }] }],
    });
    expect(rule.data.trace[0].conditions).toMatchObject([
      { value: 18, actual: 37, holds: true },
      { value: ['api'], actual: ['billing', 'api'], holds: true },
    ]);

    // A webhook with provider settings; a test call records a delivery whose sent body is any JSON.
    const config = { channel: '#leads', username: 'Intake' };
    const hook = await ok('create_webhook', {
      form,
      label: 'Slack',
      provider: 'slack',
      url: 'https://127.0.0.1:9/hook',
      config,
    });
    expect(hook.data.config).toEqual(config);
    const webhook = hook.data.id as string;
    await ok('get_webhook', { form, webhook });
    await ok('list_webhooks', { form });
    await ok('test_webhook', { form, webhook });
    expect((await ok('list_deliveries', { form, webhook })).data[0].request_body).toEqual(expect.any(Object));

    // An erasure job's result: its counts. (An erasure answers 200 or 202, so its tool has no output schema.)
    const erasure = (await ok('create_erasure', { email: 'nobody@example.com' })) as { job_id: string };
    const job = await ok('get_job', { job_id: erasure.job_id });
    expect(job.data.result).toMatchObject({ erasure_id: expect.any(String), submissions: expect.any(Number) });

    // The schemas are no catch-all: an answer missing its fields, or arguments of the wrong type, fail them.
    expect(validator('get_form', 'outputSchema')({ data: {} })).toBe(false);
    expect(validator('create_form', 'inputSchema')({ name: 5 })).toBe(false);
    expect(validator('create_submission', 'inputSchema')({ form, fields: 'not an object' })).toBe(false);
    expect(checked.size).toBe(15);
  });
});
