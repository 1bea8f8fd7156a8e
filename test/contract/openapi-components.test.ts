import { readFileSync } from 'node:fs';
import { initContract, isAppRoute, type AppRoute, type AppRouter } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contract, ErrorBody, type RouteMetadata } from '../../contract/index.ts';
import { ERROR_CODES } from '../../contract/errors.ts';
import { WEBHOOK_EVENT_BODIES } from '../../contract/events.ts';
import { Form } from '../../contract/forms.ts';
import { buildOpenApi } from '../../scripts/openapi/document.ts';
import { bearer, makeTeam, startTestApp } from '../support/harness.ts';
import { COSTS } from '../../contract/costs.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking a parsed document

/**
 * openapi.json as integrators' generators read it (issue 27): OpenAPI 3.1, named components referenced by
 * `$ref`, the outgoing events as `webhooks`, the error codes as an enum, and the rate-limit answers.
 */
const doc = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as Json;
const schemas = doc.components.schemas as Record<string, Json>;
const t = await startTestApp();
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Op = { where: string; op: Json };
function operationsOf(items: Record<string, Json>, prefix = ''): Op[] {
  return Object.entries(items).flatMap(([key, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ where: `${prefix}${m.toUpperCase()} ${key}`, op: item[m] as Json })),
  );
}
const operations = [...operationsOf(doc.paths), ...operationsOf(doc.webhooks ?? {}, 'webhook ')];

function routesOf(router: AppRouter): AppRoute[] {
  return Object.values(router).flatMap((value) => (isAppRoute(value) ? [value] : routesOf(value)));
}
const openApiPath = (route: AppRoute) => route.path.replace(/:(\w+)/g, '{$1}');
const resolve = (ref: string): Json | undefined => schemas[ref.replace('#/components/schemas/', '')];
/** An operation's request body, through its `$ref` to a named request body. */
const requestBodyOf = (op: Json): Json | undefined =>
  op.requestBody?.$ref
    ? doc.components.requestBodies[String(op.requestBody.$ref).replace('#/components/requestBodies/', '')]
    : op.requestBody;

/** Every schema object in a value (through properties, items, compositions…), with where it is. */
function eachSchemaIn(value: unknown, where: string, visit: (s: Json, where: string) => void): void {
  if (!value || typeof value !== 'object') return;
  if (Array.isArray(value)) return value.forEach((v, i) => eachSchemaIn(v, `${where}[${i}]`, visit));
  const s = value as Json;
  visit(s, where);
  for (const [key, child] of Object.entries(s))
    if (typeof child === 'object') eachSchemaIn(child, `${where}.${key}`, visit);
}

describe('openapi.json for code generators', () => {
  it('is OpenAPI 3.1 with the canonical /v1 and the /api/v1 alias as servers, the public endpoint at the root only', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers.map((s: Json) => s.url)).toEqual(['/', '/api']);
    expect(doc.servers[0].description).toContain('`/v1` (canonical)');
    expect(doc.servers[1].description).toContain('`/api/v1`');
    expect(doc.paths['/f/{form}'].servers.map((s: Json) => s.url)).toEqual(['/']);
    for (const key of Object.keys(doc.paths)) expect(key.startsWith('/v1/') || key === '/f/{form}', key).toBe(true);
  });

  it('names every resource, body and error as a component', () => {
    for (const name of [
      'Form',
      'Submission',
      'SubmissionDetail',
      'Webhook',
      'Delivery',
      'Token',
      'TokenListEntry',
      'Insights',
      'Job',
      'Me',
      'ErrorBody',
      'ValidationErrorBody',
      'RateLimitedBody',
      'BulkBody',
      'BulkResult',
      'SubmissionCreatedEvent',
      'InsightsRegeneratedEvent',
    ]) {
      expect(schemas, name).toHaveProperty(name);
    }
    // A request body with a defaulted property is a named request body (see 'describes a request as its input').
    for (const name of ['CreateFormBody', 'CreateWebhookBody', 'ErasureBody'])
      expect(doc.components.requestBodies, name).toHaveProperty(name);
    expect(Object.keys(schemas).every((name) => /^[A-Z][A-Za-z0-9]*$/.test(name))).toBe(true);
    expect(schemas.Form.properties).toHaveProperty('settings');
    expect(schemas.Submission.properties).toHaveProperty('payload');
    expect(schemas.Token.properties).toHaveProperty('last4');
  });

  it('makes every request and response body at the top level a $ref (text and binary answers aside)', () => {
    const inline: string[] = [];
    let bodies = 0;
    for (const { where, op } of operations) {
      if (op.requestBody?.$ref && !requestBodyOf(op)) inline.push(`${where} body ${op.requestBody.$ref}`);
      if (op.requestBody?.$ref) bodies++;
      const media: [string, Json][] = Object.entries((op.requestBody?.content ?? {}) as Record<string, Json>).map(
        ([type, m]) => [`${where} body ${type}`, m],
      );
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        for (const [type, m] of Object.entries((response.content ?? {}) as Record<string, Json>))
          media.push([`${where} ${status} ${type}`, m]);
      }
      for (const [at, m] of media) {
        if (m.schema.type === 'string') continue;
        bodies++;
        if (Object.keys(m.schema).join() !== '$ref' || !resolve(m.schema.$ref)) inline.push(at);
      }
    }
    expect(inline).toEqual([]);
    expect(bodies).toBeGreaterThan(150);
  });

  it('refers to a resource by $ref where a route answers it', () => {
    const body = (path: string, method: string, status: string) =>
      resolve(doc.paths[path][method].responses[status].content['application/json'].schema.$ref)!;
    expect(body('/v1/forms/{form}', 'get', '200').properties.data).toEqual({ $ref: '#/components/schemas/Form' });
    expect(body('/v1/forms/{form}/webhooks/{webhook}', 'get', '200').properties.data).toEqual({
      $ref: '#/components/schemas/Webhook',
    });
    expect(body('/v1/jobs/{job_id}', 'get', '200').properties.data).toEqual({ $ref: '#/components/schemas/Job' });
    expect(doc.paths['/v1/forms/{form}'].get.responses['404'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ErrorBody',
    });
    expect(schemas.SubmissionPage.properties.data.items).toEqual({ $ref: '#/components/schemas/Submission' });
  });

  it('every $ref resolves, and no 3.0 spelling is left (nullable, boolean exclusive bounds)', () => {
    const problems: string[] = [];
    eachSchemaIn(doc, '#', (s, where) => {
      if (typeof s.$ref === 'string' && s.$ref.startsWith('#/components/schemas/') && !resolve(s.$ref))
        problems.push(`${where}: ${s.$ref}`);
      if ('nullable' in s && typeof s.nullable === 'boolean') problems.push(`${where}: nullable`);
      if (typeof s.exclusiveMinimum === 'boolean' || typeof s.exclusiveMaximum === 'boolean')
        problems.push(`${where}: boolean bound`);
    });
    expect(problems).toEqual([]);
    expect(schemas.Token.properties.expires_at.type).toEqual(['string', 'null']);
  });

  /** The defaulted properties in a schema and the schemas it refers to: where, and whether its object requires it. */
  function defaultedProperties(schema: unknown, where: string, seen = new Set<string>()) {
    const found: { where: string; required: boolean; inComponent: boolean }[] = [];
    eachSchemaIn(schema, where, (s, at) => {
      if (typeof s.$ref === 'string' && s.$ref.startsWith('#/components/schemas/') && !seen.has(s.$ref)) {
        seen.add(s.$ref);
        const inner = defaultedProperties(resolve(s.$ref), s.$ref, seen);
        found.push(...inner.map((f) => ({ ...f, inComponent: true })));
      }
      for (const [key, property] of Object.entries((s.properties ?? {}) as Record<string, Json>))
        if (property && typeof property === 'object' && 'default' in property)
          found.push({ where: `${at}.${key}`, required: (s.required ?? []).includes(key), inComponent: false });
    });
    return found;
  }

  it('describes a request as its input: a defaulted property is optional, keeps its default, and is in no component', () => {
    const found = operations
      .filter(({ where }) => !where.startsWith('webhook '))
      .flatMap(({ where, op }) => defaultedProperties(requestBodyOf(op), `${where} body`));
    expect(found.filter((f) => f.required)).toEqual([]);
    // A property with a default in a component schema reads, to openapi-typescript at its defaults, as always present.
    expect(found.filter((f) => f.inComponent)).toEqual([]);
    const at = found.map((f) => f.where);
    for (const property of ['notification_emails', 'provider', 'config', 'events', 'active', 'dry_run'])
      expect(
        at.some((w) => w.endsWith(`.${property}`)),
        property,
      ).toBe(true);
    const created = requestBodyOf(doc.paths['/v1/forms'].post)!.content['application/json'].schema;
    expect(created.required).toEqual(['name']);
    expect(created.properties.notification_emails.default).toEqual([]);
    expect(doc.paths['/v1/forms'].post.requestBody).toEqual({ $ref: '#/components/requestBodies/CreateFormBody' });
  });

  it('describes an answer as its output: a defaulted property is required', () => {
    const found = operations.flatMap(({ where, op }) => [
      ...Object.entries(op.responses as Record<string, Json>).flatMap(([status, r]) =>
        defaultedProperties(r.content, `${where} ${status}`),
      ),
      ...(where.startsWith('webhook ') ? defaultedProperties(op.requestBody, `${where} body`) : []),
    ]);
    expect(found.filter((f) => !f.required)).toEqual([]);
    expect(found.length).toBeGreaterThan(3);
    expect(schemas.Stage.required).toContain('done');
    expect(schemas.UniqueRule.required).toEqual(expect.arrayContaining(['normalize', 'window_days', 'message']));
  });

  it('publishes ErrorBody.error as the closed list of codes, each described', () => {
    const error = schemas.ErrorBody.properties.error as Json;
    expect(error.enum).toEqual([...ERROR_CODES]);
    expect(error['x-enum-descriptions']).toHaveLength(ERROR_CODES.length);
    for (const [i, code] of ERROR_CODES.entries()) {
      expect(error.description, code).toContain(`\`${code}\``);
      expect(String(error['x-enum-descriptions'][i]).length, code).toBeGreaterThan(10);
    }
    expect(error.description).toContain('`not_found` (404)');
  });

  it('publishes every outgoing event of contract/events.ts in `webhooks`, with its body and signature headers', () => {
    expect(Object.keys(doc.webhooks)).toEqual(Object.keys(WEBHOOK_EVENT_BODIES));
    for (const event of Object.keys(WEBHOOK_EVENT_BODIES)) {
      const post = doc.webhooks[event].post as Json;
      const headers = (post.parameters as Json[]).filter((p) => p.in === 'header' && p.required).map((p) => p.name);
      expect(headers, event).toEqual(
        expect.arrayContaining([
          'webhook-id',
          'webhook-timestamp',
          'webhook-signature',
          'X-Service-Timestamp',
          'X-Service-Signature',
        ]),
      );
      const body = resolve(post.requestBody.content['application/json'].schema.$ref)!;
      expect(body.properties, event).toHaveProperty('type');
      expect(post.security).toEqual([]);
      expect(Object.keys(post.responses)).toEqual(['200', '410']);
    }
    expect(doc.webhooks['submission.created'].post.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/SubmissionCreatedEvent',
    );
  });

  it('documents 429 and the RateLimit headers on exactly the routes the per-token budget meters', () => {
    const routes = routesOf(contract);
    const limited = routes.filter((r) => ((r.metadata as RouteMetadata | undefined)?.cost.budget ?? 'none') !== 'none');
    expect(limited.length).toBeGreaterThan(10);
    for (const route of routes) {
      const where = `${route.method} ${route.path}`;
      const responses = doc.paths[openApiPath(route)][route.method.toLowerCase()].responses as Record<string, Json>;
      const success = Object.entries(responses).filter(([status]) => /^2/.test(status));
      if (limited.includes(route)) {
        expect(Object.keys(responses['429']?.headers ?? {}), where).toEqual(
          expect.arrayContaining(['RateLimit', 'RateLimit-Policy', 'Retry-After']),
        );
        expect(responses['429']!.content['application/json'].schema.$ref, where).toBe(
          '#/components/schemas/RateLimitedBody',
        );
        for (const [status, response] of success)
          expect(Object.keys(response.headers ?? {}), `${where} ${status}`).toEqual(
            expect.arrayContaining(['RateLimit', 'RateLimit-Policy']),
          );
      } else {
        for (const [status, response] of success)
          expect(response.headers?.RateLimit, `${where} ${status}`).toBeUndefined();
      }
    }
    expect(Object.keys(doc.components.headers)).toEqual(['RateLimit', 'RateLimit-Policy', 'Retry-After']);
  });
});

describe('naming on routes yet to come', () => {
  const c = initContract();
  const fixture = c.router({
    getThing: {
      method: 'GET',
      path: '/v1/things/:thing',
      summary: 'Show a thing',
      responses: {
        200: z.object({ data: Form, extended: Form.extend({ extra: z.string() }), maybe: Form.nullable() }),
        404: ErrorBody,
      },
      metadata: { ability: null, cost: COSTS.row },
    },
  });
  const fixtureDoc = buildOpenApi(fixture) as Json;
  const fixtureSchemas = fixtureDoc.components.schemas as Record<string, Json>;

  it('refers to a contract schema wherever a route uses it, inlines one derived from it, and names the body after the operation', () => {
    const op = fixtureDoc.paths['/v1/things/{thing}'].get;
    expect(op.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/GetThingResponse',
    });
    const body = fixtureSchemas.GetThingResponse!;
    expect(body.properties.data).toEqual({ $ref: '#/components/schemas/Form' });
    expect(body.properties.maybe).toEqual({ anyOf: [{ $ref: '#/components/schemas/Form' }, { type: 'null' }] });
    expect(body.properties.extended.properties).toHaveProperty('extra');
    expect(body.properties.extended.properties.settings).toEqual({ $ref: '#/components/schemas/FormSettings' });
    expect(Object.keys(fixtureSchemas.Form!.properties)).toEqual(Object.keys(Form.shape));
    expect(op.responses['404'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
  });
});

describe('the rate-limit headers openapi.json documents', () => {
  it('are what the server sends: on a metered route, not on an unmetered one', async () => {
    const owner = await makeTeam(t);
    const form = await t.http.post('/v1/forms').set(bearer(owner.token)).send({ name: 'Limits' });
    expect(form.status).toBe(201);
    const metered = await t.http.get(`/v1/forms/${form.body.data.id}/submissions`).set(bearer(owner.token));
    expect(metered.status).toBe(200);
    expect(doc.paths['/v1/forms/{form}/submissions'].get.responses['200'].headers).toHaveProperty('RateLimit');
    expect(metered.headers.ratelimit).toMatch(/^limit=\d+, remaining=\d+, reset=\d+$/);
    expect(metered.headers['ratelimit-policy']).toMatch(/^\d+;w=\d+$/);
    const unmetered = await t.http.get('/v1/forms').set(bearer(owner.token));
    expect(unmetered.status).toBe(200);
    expect(unmetered.headers.ratelimit).toBeUndefined();
    expect(doc.paths['/v1/forms'].get.responses['200'].headers?.RateLimit).toBeUndefined();
  });
});
