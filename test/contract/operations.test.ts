import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contract } from '../../contract/index.ts';
import { AppError } from '../../server/domain/shared/errors.ts';
import { operations } from '../../server/operations/index.ts';
import { bearerToken } from '../../server/domain/accounts/tokens.ts';
import { invoke } from '../../server/operations/pipeline.ts';
import { bearer, makeMember, makeTeam, startTestApp } from '../support/harness.ts';

/** One way to call an operation (issue 26): a table of operations that REST and MCP bind to, through `invoke`'s checks. */
const root = path.resolve(import.meta.dirname, '..', '..');
const sources = (dir: string) =>
  fs
    .readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f));
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

describe('the operation table', () => {
  it('holds one operation per contract route', () => {
    expect(Object.keys(operations).sort()).toEqual(Object.keys(contract).sort());
  });

  it('MCP calls it without HTTP: nothing in server/transports/mcp but its HTTP transport imports express or transports/http, and nothing fakes a response', () => {
    const overHttp = path.join('server', 'transports', 'mcp', 'http.ts');
    const mcp = sources('server/transports/mcp')
      .filter((f) => f !== overHttp)
      .flatMap((f) => [...read(f).matchAll(/from '([^']+)'/g)].map((m) => `${f} → ${m[1]}`));
    expect(mcp.filter((i) => /→ (express|.*\/http\/)/.test(i))).toEqual([]);
    expect(sources('server').filter((f) => /as unknown as (express\.)?Response\b/.test(read(f)))).toEqual([]);
  });

  it('parses a bearer header in one place', () => {
    expect(sources('server').filter((f) => /\/\^Bearer/.test(read(f)))).toEqual([
      path.join('server', 'domain', 'accounts', 'tokens.ts'),
    ]);
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer   abc  ')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
  });
});

describe('invoke', async () => {
  const t = await startTestApp();
  const owner = await makeTeam(t, { plan: 'pro' });
  const viewer = await makeMember(t, owner.teamId, 'viewer');
  const codeOf = (p: Promise<unknown>) =>
    p.then(
      () => 'ok',
      (err: unknown) => (err instanceof AppError ? err.code : String(err)),
    );

  it('authenticates a bearer header and answers what REST answers', async () => {
    const rest = await t.http.get('/v1/me').set(bearer(owner.token));
    const called = await invoke(t.ctx, 'getMe', { authorization: `Bearer ${owner.token}` }, {});
    expect(called).toEqual({ status: 200, body: rest.body });
    expect(await codeOf(invoke(t.ctx, 'getMe', { authorization: undefined }, {}))).toBe('unauthenticated');
    expect(await codeOf(invoke(t.ctx, 'getMe', { authorization: 'Bearer intk_nope' }, {}))).toBe('unauthenticated');
  });

  it("checks the route's ability, the input guard and path ids before the operation runs", async () => {
    expect(
      await codeOf(invoke(t.ctx, 'createForm', { authorization: `Bearer ${viewer.token}` }, { name: 'Nope' })),
    ).toBe('forbidden');
    expect(
      await codeOf(invoke(t.ctx, 'createForm', { authorization: `Bearer ${owner.token}` }, { name: 'a\u0000b' })),
    ).toBe('validation_failed');
    expect(
      await codeOf(invoke(t.ctx, 'getForm', { authorization: `Bearer ${owner.token}` }, { form: 'frm_not-an-id' })),
    ).toBe('not_found');
    const forms = await t.http.get('/v1/forms').set(bearer(owner.token));
    expect(forms.body.meta.total).toBe(0);
  });

  it('charges the same per-token budget as REST', async () => {
    const form = await invoke(t.ctx, 'createForm', { authorization: `Bearer ${owner.token}` }, { name: 'Budget' });
    const formId = (form.body as { data: { id: string } }).data.id;
    const remaining = async () =>
      Number(
        /remaining=(\d+)/.exec(
          String((await t.http.get(`/v1/forms/${formId}/submissions`).set(bearer(owner.token))).headers['ratelimit']),
        )![1],
      );
    const before = await remaining();
    await invoke(t.ctx, 'listSubmissions', { authorization: `Bearer ${owner.token}` }, { form: formId });
    await invoke(t.ctx, 'listSubmissions', { authorization: `Bearer ${owner.token}` }, { form: formId });
    // Two invocations and the REST request itself: three fewer, unless a new minute began in between.
    const after = await remaining();
    expect([before - 3, t.config.apiRateLimit - 1]).toContain(after);
  });
});
