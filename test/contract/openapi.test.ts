import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { initContract, isAppRoute, type AppRouter } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ABILITIES, authErrors, contract, ErrorBody } from '../../contract/index.ts';
import { buildOpenApi, openApiText } from '../../scripts/openapi/document.ts';
import {
  CAPTCHA_TOKEN_FIELDS as DOCUMENTED_TOKEN_FIELDS,
  DEFAULT_HONEYPOT_FIELD,
  PUBLIC_POST_LIMITS,
} from '../../contract/public-endpoint.ts';
import { CAPTCHA_TOKEN_FIELDS } from '../../server/domain/spam/captcha.ts';
import { DEFAULT_SETTINGS } from '../../server/domain/spam/stored-rules.ts';
import { INGEST_LIMITS } from '../../server/domain/ingest/limits.ts';
import { startTestApp } from '../support/harness.ts';
import { COSTS } from '../../contract/costs.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking a parsed document

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const COMMITTED = readFileSync(path.join(ROOT, 'openapi.json'), 'utf8');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const t = await startTestApp();

function operations(doc: Json): { method: string; path: string; op: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([p, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ method, path: p, op: item[method] as Json })),
  );
}

function routeKeys(router: AppRouter): Map<string, string> {
  const keys = new Map<string, string>();
  for (const [key, value] of Object.entries(router)) {
    if (isAppRoute(value)) keys.set(`${value.method.toLowerCase()} ${value.path.replace(/:(\w+)/g, '{$1}')}`, key);
    else for (const [k, v] of routeKeys(value)) keys.set(k, v);
  }
  return keys;
}

type LintResult = {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; message: string; location: unknown }[];
};

/** The Redocly CLI with the repository's redocly.yaml; no telemetry, no update check, no network. */
function redoclyLint(file: string): LintResult {
  const run = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'),
      'lint',
      file,
      '--format=json',
      `--config=${path.join(ROOT, 'redocly.yaml')}`,
    ],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true', NO_COLOR: '1' },
      timeout: 60_000,
    },
  );
  if (!run.stdout.trim()) throw new Error(`redocly lint produced no report (exit ${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout) as LintResult;
}

describe('openapi.json', () => {
  it('is exactly what the contract generates (run `npm run openapi` after changing the contract)', () => {
    const generated = openApiText();
    expect(COMMITTED, 'openapi.json is stale: run `npm run openapi` and commit it').toBe(generated);
    expect(openApiText(), 'the generator must be deterministic').toBe(generated);
  });

  it("carries the package's one version number", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const sdk = JSON.parse(readFileSync(new URL('../../sdk/package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect((buildOpenApi() as { info: { version: string } }).info.version).toBe(pkg.version);
    expect(sdk.version).toBe(pkg.version);
  });

  it('passes swagger-parser validation', async () => {
    await expect(SwaggerParser.validate(JSON.parse(COMMITTED))).resolves.toBeTruthy();
  });

  it('passes redocly lint with no errors and no warnings', { timeout: 60_000 }, () => {
    const result = redoclyLint(path.join(ROOT, 'openapi.json'));
    expect(result.problems.map((p) => `${p.ruleId}: ${p.message} at ${JSON.stringify(p.location)}`)).toEqual([]);
    expect(result.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('publishes security, ability, tag and operation id of every route', () => {
    const doc = JSON.parse(COMMITTED) as Json;
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    const tagNames = (doc.tags as Json[]).map((t) => t.name);
    const keys = routeKeys(contract);
    // Everything but the public form endpoint (below) is a contract route under /v1.
    const ops = operations(doc).filter((o) => o.path.startsWith('/v1/'));
    expect(
      operations(doc)
        .filter((o) => !o.path.startsWith('/v1/'))
        .map((o) => `${o.method} ${o.path}`),
    ).toEqual(['post /f/{form}']);
    expect(ops.length).toBe(keys.size);
    for (const { method, path: p, op } of ops) {
      const where = `${method.toUpperCase()} ${p}`;
      expect(op.operationId, where).toBe(keys.get(`${method} ${p}`));
      expect(op.security, where).toEqual([{ bearerAuth: [] }]);
      expect(op, where).toHaveProperty('x-ability');
      const ability = op['x-ability'] as string | null;
      expect(ability === null || (ABILITIES as readonly string[]).includes(ability), where).toBe(true);
      expect(op.description, where).toContain(ability ? `\`${ability}\`` : 'any valid token');
      expect(op.tags, where).toHaveLength(1);
      expect(tagNames, where).toContain(op.tags[0]);
      const params = (op.parameters ?? []) as Json[];
      expect(
        params.some((prm) => prm.in === 'header' && /^authorization$/i.test(prm.name)),
        where,
      ).toBe(false);
      for (const [status, response] of Object.entries(op.responses as Json)) {
        expect(response.description, `${where} ${status}`).not.toMatch(/^\d+$/);
      }
    }
  });

  it('tags routes by resource', () => {
    const tagOf = (operationId: string) =>
      operations(JSON.parse(COMMITTED)).find((o) => o.op.operationId === operationId)?.op.tags[0];
    expect(tagOf('getMe')).toBe('Account');
    expect(tagOf('createToken')).toBe('Tokens');
    expect(tagOf('listInvoices')).toBe('Billing');
  });

  it('is served at GET /v1/openapi.json exactly as committed', async () => {
    const res = await t.http.get('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.text).toBe(COMMITTED);
  });
});

/** The document with every `$ref` replaced by what it names. */
const DEREFERENCED = (await SwaggerParser.dereference(JSON.parse(COMMITTED))) as Json;

describe('the public endpoint POST /f/{form} in openapi.json', () => {
  const doc = DEREFERENCED;
  const item = doc.paths['/f/{form}'] as Json;
  const post = item.post as Json;
  const MEDIA = ['application/x-www-form-urlencoded', 'multipart/form-data', 'application/json'];

  it('is an operation with no security, under its own described tag, whose ids are no SDK method', () => {
    const tag = (doc.tags as Json[]).find((t) => t.name === 'Public endpoint');
    expect(tag?.description).toMatch(/no token/);
    for (const [method, op] of [
      ['post', post],
      ['options', item.options as Json],
    ] as const) {
      expect(op.security, method).toEqual([]);
      expect(op.tags, method).toEqual(['Public endpoint']);
      expect(op.summary && op.description, method).toBeTruthy();
      expect(op, method).not.toHaveProperty('x-ability');
      expect(Object.keys(contract), method).not.toContain(op.operationId);
    }
    expect([post.operationId, item.options.operationId]).toEqual(['submitForm', 'preflightForm']);
    const ids = Object.values(doc.paths as Json).flatMap((i) =>
      Object.values(i as Json).map((op) => (op as Json).operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.info.description).toContain('POST /f/{form}');
  });

  it("takes urlencoded, multipart and JSON bodies with the reserved fields, the form's own fields and the limits", () => {
    expect(post.requestBody.required).toBe(true);
    expect(Object.keys(post.requestBody.content)).toEqual(MEDIA);
    for (const media of MEDIA) {
      const schema = post.requestBody.content[media].schema as Json;
      expect(Object.keys(schema.properties), media).toEqual([
        '_replyto',
        '_subject',
        '_next',
        '_gotcha',
        ...CAPTCHA_TOKEN_FIELDS,
      ]);
      expect(schema.additionalProperties, media).toBeTruthy();
      expect(schema.maxProperties, media).toBe(
        INGEST_LIMITS.fields + (media === 'multipart/form-data' ? INGEST_LIMITS.files : 0),
      );
      expect(schema.description, media).toContain('`_`');
    }
    const multipart = JSON.stringify(post.requestBody.content['multipart/form-data'].schema.additionalProperties);
    expect(multipart).toContain('"format":"binary"');
    expect(
      post.requestBody.content['application/x-www-form-urlencoded'].schema.additionalProperties.anyOf[0].maxLength,
    ).toBe(INGEST_LIMITS.fieldValueBytes);
    expect(post.description).toContain(
      `at most ${INGEST_LIMITS.fields} fields, names of at most ${INGEST_LIMITS.fieldName} characters, values of at most 64 KB`,
    );
    expect(post.description).toContain('urlencoded and JSON bodies of at most 1 MB');
    expect(post.description).toContain('at most 10 files of at most 10 MB each');
    expect(post.description).toContain(`JSON nested at most ${INGEST_LIMITS.jsonDepth} levels`);
  });

  it('documents limits, token fields and honeypot exactly as the server has them', () => {
    const { multipartBytes: _whole, ...limits } = INGEST_LIMITS;
    expect(PUBLIC_POST_LIMITS).toEqual(limits);
    expect(DOCUMENTED_TOKEN_FIELDS).toEqual(CAPTCHA_TOKEN_FIELDS);
    expect(DEFAULT_HONEYPOT_FIELD).toBe(DEFAULT_SETTINGS.honeypot_field);
  });

  it('takes an Idempotency-Key header of at most 255 characters', () => {
    const params = post.parameters as Json[];
    expect(params.map((p) => `${p.in}:${p.name}`)).toEqual(['path:form', 'header:Idempotency-Key']);
    expect(params[1]).toMatchObject({ required: false, schema: { type: 'string', maxLength: 255 } });
    expect(params[1]!.description).toMatch(/24 hours/);
  });

  it('lists every answer with its body', () => {
    const responses = post.responses as Json;
    expect(Object.keys(responses)).toEqual([
      '201',
      '303',
      '400',
      '402',
      '403',
      '404',
      '408',
      '413',
      '415',
      '422',
      '429',
      '500',
      '503',
    ]);
    const json = (status: string) => responses[status].content['application/json'].schema as Json;
    expect(json('201').required).toEqual(['ok', 'id']);
    expect(responses['303'].headers.Location).toBeTruthy();
    expect(responses['303'].content).toBeUndefined();
    expect(json('400').properties.details).toBeTruthy();
    expect(json('402').properties.error.enum).toEqual(['quota_exceeded', 'plan_limit_reached']);
    expect(json('403').properties.error.enum).toEqual(['forbidden']);
    expect(json('404').properties.error.enum).toEqual(['not_found']);
    expect(json('413').properties.error.enum).toEqual(['payload_too_large']);
    expect(json('415').properties.error.enum).toEqual(['unsupported_media_type']);
    expect((json('422').anyOf as Json[]).map((s) => s.properties.error.enum[0])).toEqual([
      'validation_failed',
      'captcha_failed',
    ]);
    expect(json('422').anyOf[0].required).toContain('fields');
    expect(json('429').required).toContain('retry_after');
    expect(responses['429'].headers['Retry-After'].schema).toEqual({ type: 'integer' });
    for (const status of ['404', '422'])
      expect(Object.keys(responses[status].content), status).toEqual(['application/json', 'text/html']);
  });

  it('documents the CORS preflight', () => {
    const options = item.options as Json;
    expect(Object.keys(options.responses)).toEqual(['204', '400', '404']);
    expect(Object.keys(options.responses['204'].headers)).toContain('Access-Control-Allow-Origin');
  });
});

/**
 * Routes shaped like the ones still to come (export, file download, free-form payloads, coerced query
 * numbers), so the generator's repairs are checked before any real route needs them.
 */
const c = initContract();
const fixture = c.router({
  exportSubmissions: {
    method: 'GET',
    path: '/v1/forms/:form/submissions/export',
    summary: 'Export submissions',
    pathParams: z.object({ form: z.string() }),
    query: z.object({
      page: z.coerce.number().int().min(0).optional(),
      per_page: z.coerce.number().int().min(1).max(100).default(25),
      archived: z.coerce.boolean().optional(),
      cursor: z.coerce.string().nullable().optional(),
      format: z.enum(['csv', 'json']).default('csv'),
    }),
    headers: z.object({ authorization: z.string() }),
    responses: { 200: c.otherResponse({ contentType: 'text/csv', body: z.string() }), ...authErrors },
    metadata: { ability: 'submissions:export', cost: COSTS.row },
  },
  downloadFile: {
    method: 'GET',
    path: '/v1/forms/:form/submissions/:submission/files/:file',
    summary: 'Download a file',
    responses: { 302: c.noBody(), 404: ErrorBody },
    metadata: { ability: 'submissions:read', cost: COSTS.row },
  },
  updateSubmission: {
    method: 'PUT',
    path: '/v1/forms/:form/submissions/:submission',
    summary: 'Update a submission',
    body: z.object({
      payload: z.record(z.unknown()),
      note: z.unknown(),
      score: z.coerce.number().min(0),
      status: z.literal('spam').or(z.string()),
    }),
    responses: { 200: z.object({ data: z.object({ payload: z.record(z.any()), raw: z.unknown() }) }), 404: ErrorBody },
    metadata: { ability: 'submissions:write', cost: COSTS.row },
  },
  listDeliveries: {
    method: 'GET',
    path: '/v1/forms/:form/webhooks/:webhook/deliveries',
    summary: 'List deliveries',
    responses: { 200: z.object({ data: z.array(z.object({ id: z.string() })) }), 404: ErrorBody },
    metadata: { ability: 'webhooks:read', cost: COSTS.row },
  },
  regenerateInsights: {
    method: 'POST',
    path: '/v1/ai-insights/regenerate',
    summary: 'Regenerate insights',
    body: c.noBody(),
    responses: { 202: z.object({ ok: z.literal(true) }), 409: ErrorBody },
    metadata: { ability: 'insights:write', cost: COSTS.row },
  },
  getJob: {
    method: 'GET',
    path: '/v1/jobs/:job',
    summary: 'Show a job',
    responses: { 200: z.object({ data: z.object({ id: z.string() }) }), 404: ErrorBody },
    metadata: { ability: 'webhooks:read', cost: COSTS.row },
  },
});

describe('OpenAPI generator on routes yet to come', () => {
  const doc = buildOpenApi(fixture) as Json;
  const op = (operationId: string) => operations(doc).find((o) => o.op.operationId === operationId)!.op;
  /** A top-level body is a `$ref` to its component (named after the operation when no schema is). */
  const deref = (schema: Json): Json =>
    schema.$ref ? doc.components.schemas[String(schema.$ref).split('/').pop()!] : schema;

  it('publishes coerced query values as plain (not nullable) and drops the authorization header', () => {
    const params = Object.fromEntries(
      (op('exportSubmissions').parameters as Json[]).map((p) => [`${p.in}:${p.name}`, p.schema]),
    );
    expect(Object.keys(params)).not.toContain('header:authorization');
    expect(params['query:page']).toEqual({ type: 'integer', minimum: 0 });
    expect(params['query:per_page']).toMatchObject({ type: 'integer', default: 25 });
    expect(params['query:per_page']).not.toHaveProperty('nullable');
    expect(params['query:archived']).toEqual({ type: 'boolean' });
    expect(params['query:cursor']).toMatchObject({ type: ['string', 'null'] }); // declared nullable stays (3.1: a null type)
  });

  it('gives streamed CSV its content entry and redirects a Location header', () => {
    expect(op('exportSubmissions').responses['200'].content).toEqual({ 'text/csv': { schema: { type: 'string' } } });
    const redirect = op('downloadFile').responses['302'];
    expect(redirect.content).toBeUndefined();
    expect(redirect.headers.Location.schema).toEqual({ type: 'string', format: 'uri' });
    expect(redirect.description).not.toMatch(/^\d+$/);
  });

  it('publishes z.unknown() as a typeless schema without nullable, and unions as anyOf', () => {
    const body = op('updateSubmission').requestBody;
    expect(body.required).toBe(true);
    expect(body.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/UpdateSubmissionBody' });
    const props = deref(body.content['application/json'].schema).properties;
    expect(props.note).toEqual({ description: 'Any JSON value.' });
    expect(props.payload.additionalProperties).not.toHaveProperty('nullable');
    expect(props.score).toEqual({ type: 'number', minimum: 0 });
    expect(props.status.anyOf).toHaveLength(2);
    expect(props.status).not.toHaveProperty('oneOf');
    const data = deref(op('updateSubmission').responses['200'].content['application/json'].schema).properties.data;
    expect(data.properties.raw).not.toHaveProperty('nullable');
  });

  it('tags by the last resource in the path', () => {
    expect(op('exportSubmissions').tags).toEqual(['Submissions']);
    expect(op('downloadFile').tags).toEqual(['Submissions']);
    expect(op('listDeliveries').tags).toEqual(['Deliveries']);
    expect(op('regenerateInsights').tags).toEqual(['Insights']);
    expect(op('getJob').tags).toEqual(['Jobs']);
    expect((doc.tags as Json[]).map((t) => t.name)).toEqual(['Submissions', 'Deliveries', 'Insights', 'Jobs']);
  });

  it('passes swagger-parser and redocly lint', { timeout: 60_000 }, async () => {
    const text = openApiText(fixture);
    await expect(SwaggerParser.validate(JSON.parse(text))).resolves.toBeTruthy();
    const dir = mkdtempSync(path.join(tmpdir(), 'intake-openapi-'));
    try {
      const file = path.join(dir, 'fixture.json');
      writeFileSync(file, text);
      const result = redoclyLint(file);
      expect(result.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('publishes the ability of each route', () => {
    for (const [key, route] of Object.entries(fixture))
      expect(op(key)['x-ability']).toBe((route.metadata as Json).ability);
  });
});
