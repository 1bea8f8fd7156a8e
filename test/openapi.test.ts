import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { initContract, isAppRoute, type AppRouter } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ABILITIES, authErrors, contract, ErrorBody } from '../contract/index.ts';
import { buildOpenApi, openApiText } from '../contract/openapi.ts';
import { startTestApp } from './support/harness.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking a parsed document

const ROOT = path.resolve(import.meta.dirname, '..');
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

type LintResult = { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string; location: unknown }[] };

/** The Redocly CLI with the repository's redocly.yaml; no telemetry, no update check, no network. */
function redoclyLint(file: string): LintResult {
  const run = spawnSync(
    process.execPath,
    [path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', file, '--format=json', `--config=${path.join(ROOT, 'redocly.yaml')}`],
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
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    const sdk = JSON.parse(readFileSync(new URL('../sdk/package.json', import.meta.url), 'utf8')) as { version: string };
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
    const ops = operations(doc);
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
      expect(params.some((prm) => prm.in === 'header' && /^authorization$/i.test(prm.name)), where).toBe(false);
      for (const [status, response] of Object.entries(op.responses as Json)) {
        expect(response.description, `${where} ${status}`).not.toMatch(/^\d+$/);
      }
    }
  });

  it('tags routes by resource', () => {
    const tagOf = (operationId: string) => operations(JSON.parse(COMMITTED)).find((o) => o.op.operationId === operationId)?.op.tags[0];
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
    metadata: { ability: 'submissions:export' },
  },
  downloadFile: {
    method: 'GET',
    path: '/v1/forms/:form/submissions/:submission/files/:file',
    summary: 'Download a file',
    responses: { 302: c.noBody(), 404: ErrorBody },
    metadata: { ability: 'submissions:read' },
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
    metadata: { ability: 'submissions:write' },
  },
  listDeliveries: {
    method: 'GET',
    path: '/v1/forms/:form/webhooks/:webhook/deliveries',
    summary: 'List deliveries',
    responses: { 200: z.object({ data: z.array(z.object({ id: z.string() })) }), 404: ErrorBody },
    metadata: { ability: 'webhooks:read' },
  },
  regenerateInsights: {
    method: 'POST',
    path: '/v1/ai-insights/regenerate',
    summary: 'Regenerate insights',
    body: c.noBody(),
    responses: { 202: z.object({ ok: z.literal(true) }), 409: ErrorBody },
    metadata: { ability: 'insights:write' },
  },
  getJob: {
    method: 'GET',
    path: '/v1/jobs/:job',
    summary: 'Show a job',
    responses: { 200: z.object({ data: z.object({ id: z.string() }) }), 404: ErrorBody },
    metadata: { ability: 'webhooks:read' },
  },
});

describe('OpenAPI generator on routes yet to come', () => {
  const doc = buildOpenApi(fixture) as Json;
  const op = (operationId: string) => operations(doc).find((o) => o.op.operationId === operationId)!.op;

  it('publishes coerced query values as plain (not nullable) and drops the authorization header', () => {
    const params = Object.fromEntries((op('exportSubmissions').parameters as Json[]).map((p) => [`${p.in}:${p.name}`, p.schema]));
    expect(Object.keys(params)).not.toContain('header:authorization');
    expect(params['query:page']).toEqual({ type: 'integer', minimum: 0 });
    expect(params['query:per_page']).toMatchObject({ type: 'integer', default: 25 });
    expect(params['query:per_page']).not.toHaveProperty('nullable');
    expect(params['query:archived']).toEqual({ type: 'boolean' });
    expect(params['query:cursor']).toMatchObject({ type: 'string', nullable: true }); // declared nullable stays
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
    const props = body.content['application/json'].schema.properties;
    expect(props.note).toEqual({ description: 'Any JSON value.' });
    expect(props.payload.additionalProperties).not.toHaveProperty('nullable');
    expect(props.score).toEqual({ type: 'number', minimum: 0 });
    expect(props.status.anyOf).toHaveLength(2);
    expect(props.status).not.toHaveProperty('oneOf');
    const data = op('updateSubmission').responses['200'].content['application/json'].schema.properties.data;
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
    for (const [key, route] of Object.entries(fixture)) expect(op(key)['x-ability']).toBe((route.metadata as Json).ability);
  });
});
