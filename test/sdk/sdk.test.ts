import { PLANS } from '../support/plans.ts';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ABILITIES } from '../../contract/abilities.ts';
import { contract } from '../../contract/index.ts';
import { runReplayJob } from '../../server/domain/delivery/replay.ts';
import { newId } from '../../server/domain/shared/ids.ts';
import { generateOpenApiTypes, OPENAPI_JSON, OPENAPI_TYPES } from '../../sdk/generate-types.ts';
import { createClient, IntakeError, paginate, unwrap } from '../../sdk/index.ts';
import { makePublishedForm } from '../support/forms.ts';
import { makeMember, makeTeam, makeToken } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';

// Private webhook URLs allowed: a test creates one without a DNS lookup (no internet here).
const t = await startLiveTestApp({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' });
const clientFor = (member: { token: string }) => createClient({ baseUrl: t.baseUrl, token: member.token });
const badToken = `intk_${'x'.repeat(40)}`;

/** The IntakeError a call rejects with (anything else fails the test). */
async function rejection(call: Promise<unknown>): Promise<IntakeError> {
  try {
    await call;
  } catch (err) {
    if (err instanceof IntakeError) return err;
    throw err;
  }
  throw new Error('expected the call to throw an IntakeError');
}

describe('getMe', () => {
  it('answers the caller as a typed 200 with the request id', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const res = await clientFor(owner).getMe();
    expect(res.status).toBe(200);
    if (res.status !== 200) return;
    expect(res.body.data).toMatchObject({
      user: { id: owner.userId },
      team: { id: owner.teamId, plan: 'pro' },
      role: 'owner',
      token: { id: owner.tokenId, name: 'test' },
    });
    expect([...res.body.data.token.abilities].sort()).toEqual([...ABILITIES].sort());
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('client.ok answers the body, and a base URL ending in /v1 (the spec base URL) works too', async () => {
    const owner = await makeTeam(t);
    const me = await createClient({ baseUrl: `${t.baseUrl}/v1/`, token: owner.token }).ok.getMe();
    expect(me.data.team.id).toBe(owner.teamId);
    expect(me.data.user.id).toBe(owner.userId);
  });

  it('a bad token is a 401 in the union and an IntakeError carrying code, message and request id', async () => {
    const client = createClient({ baseUrl: t.baseUrl, token: badToken });
    const res = await client.getMe();
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: 'unauthenticated' });

    const err = await rejection(client.ok.getMe({ extraHeaders: { 'x-request-id': 'sdk-test-401' } }));
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({
      name: 'IntakeError',
      status: 401,
      code: 'unauthenticated',
      error: 'unauthenticated',
      requestId: 'sdk-test-401',
    });
    expect(err.body).toEqual(res.body);
    expect(err.message).toBe(err.body.message);
    expect(err.message).toMatch(/token/i);
  });

  it('unwrap() turns any call into its 2xx body or an IntakeError', async () => {
    const owner = await makeTeam(t);
    const me = await unwrap(clientFor(owner).getMe());
    expect(me.data.token.id).toBe(owner.tokenId);
    const err = await rejection(unwrap(createClient({ baseUrl: t.baseUrl, token: badToken }).getMe()));
    expect(err.status).toBe(401);
  });
});

describe('createSubmission', () => {
  it('submits from a server: 201 with the typed submission, the first answer on a repeated key, 409 typed', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const form = await makePublishedForm(t, owner, {
      settings: { unique: [{ fields: ['email'], normalize: 'email' }] },
    });
    const intake = clientFor(owner);
    const send = (email: string, key: string) =>
      intake.createSubmission({
        params: { form: form.id },
        headers: { 'idempotency-key': key },
        body: { fields: { email }, client: { ip: '198.51.100.4' } },
      });
    const first = await send('ada@example.com', 'order-1');
    expect(first.status).toBe(201);
    if (first.status !== 201) return;
    expect(first.body.data).toMatchObject({ source: 'api', status: 'received', payload: { email: 'ada@example.com' } });
    const again = await send('ada@example.com', 'order-1');
    expect(again.status === 201 && again.body.data.id).toBe(first.body.data.id);
    const duplicate = await send('ADA@example.com', 'order-2');
    expect(duplicate.status).toBe(409);
    if (duplicate.status === 409)
      expect(duplicate.body).toMatchObject({ error: 'duplicate_submission', fields: ['email'] });
  });
});

describe('listTokens', () => {
  it("lists the caller's own live tokens with their metadata, newest first", async () => {
    const owner = await makeTeam(t);
    const narrow = await makeToken(t, owner, ['forms:read']);
    const revoked = await makeToken(t, owner, ['forms:read']);
    await clientFor(owner).ok.revokeToken({ params: { token: revoked.tokenId } });
    const colleague = await makeMember(t, owner.teamId, 'admin');

    const { data } = await clientFor(owner).ok.listTokens();
    expect(data.map((x) => x.id).sort()).toEqual([owner.tokenId, narrow.tokenId].sort());
    const own = data.find((x) => x.id === owner.tokenId)!;
    expect(own).toMatchObject({ name: 'test', last4: owner.token.slice(-4) });
    expect(own.last_used_at).not.toBeNull(); // it is the calling token
    expect(data.find((x) => x.id === narrow.tokenId)).toMatchObject({
      name: 'extra',
      abilities: ['forms:read'],
      last4: narrow.token.slice(-4),
      last_used_at: null,
    });
    const created = data.map((x) => Date.parse(x.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    expect(data.some((x) => x.id === colleague.tokenId)).toBe(false);
  });

  it('needs tokens:read', async () => {
    const owner = await makeTeam(t);
    const narrow = await makeToken(t, owner, ['forms:read']);
    const err = await rejection(clientFor(narrow).ok.listTokens());
    expect(err).toMatchObject({ status: 403, code: 'forbidden' });
    expect(err.body.required).toBe('tokens:read');
  });
});

describe('createToken', () => {
  it('mints a token whose plaintext is returned once and works at once', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const res = await clientFor(owner).createToken({
      body: { name: 'ci deploys', abilities: ['forms:read', 'submissions:read', 'forms:read'] },
    });
    expect(res.status).toBe(201);
    if (res.status !== 201) return;
    const { data, token } = res.body;
    expect(token).toMatch(/^intk_[0-9A-Za-z]{40}$/);
    expect(data).toMatchObject({
      name: 'ci deploys',
      abilities: ['forms:read', 'submissions:read'],
      last4: token.slice(-4),
    });
    expect(data.id).toMatch(/^tok_[0-9a-z]{26}$/);
    expect(data).not.toHaveProperty('token');

    const me = await createClient({ baseUrl: t.baseUrl, token }).ok.getMe();
    expect(me.data.token).toEqual({ id: data.id, name: 'ci deploys', abilities: ['forms:read', 'submissions:read'] });
    const listed = await clientFor(owner).ok.listTokens();
    expect(listed.data.find((x) => x.id === data.id)).toMatchObject({
      last4: token.slice(-4),
      last_used_at: expect.any(String),
    });
  });

  it('refuses abilities the calling token lacks: 403 ability_exceeds_caller with `exceeded`', async () => {
    const owner = await makeTeam(t);
    const narrow = await makeToken(t, owner, ['tokens:write', 'forms:read']);
    const body = { name: 'wider', abilities: ['forms:read', 'forms:write', 'webhooks:write'] };

    const res = await clientFor(narrow).createToken({ body });
    expect(res.status).toBe(403);
    if (res.status !== 403) return;
    expect(res.body).toMatchObject({ error: 'ability_exceeds_caller', exceeded: ['forms:write', 'webhooks:write'] });

    const err = await rejection(clientFor(narrow).ok.createToken({ body }));
    expect(err.status).toBe(403);
    expect(err.is('ability_exceeds_caller')).toBe(true);
    if (!err.is('ability_exceeds_caller')) return;
    const exceeded: string[] = err.body.exceeded; // typed by the contract's AbilityExceedsCallerBody
    expect(exceeded).toEqual(['forms:write', 'webhooks:write']);
    expect(err.message).toBe(err.body.message);
    expect((await clientFor(owner).ok.listTokens()).data).toHaveLength(2);
  });

  it('answers 400 validation_failed for an unknown ability and for an empty list', async () => {
    const owner = await makeTeam(t);
    const client = clientFor(owner);
    const unknown = await rejection(
      client.ok.createToken({ body: { name: 'x', abilities: ['forms:read', 'forms:delete'] } }),
    );
    expect(unknown).toMatchObject({ status: 400, code: 'validation_failed' });
    if (!unknown.is('validation_failed')) throw unknown;
    expect(unknown.body.details).toEqual([
      { in: 'body', path: 'abilities', message: 'Unknown ability "forms:delete".' },
    ]);

    const empty = await client.createToken({ body: { name: 'x', abilities: [] } });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({
      error: 'validation_failed',
      details: [{ in: 'body', path: 'abilities', message: 'At least one ability is required.' }],
    });
    expect((await client.ok.listTokens()).data.map((x) => x.id)).toEqual([owner.tokenId]);
  });

  it('answers 402 payment_required on the free plan and mints nothing', async () => {
    const owner = await makeTeam(t, { plan: 'free' });
    const err = await rejection(clientFor(owner).ok.createToken({ body: { name: 'x', abilities: ['forms:read'] } }));
    expect(err).toMatchObject({ status: 402, code: 'payment_required' });
    expect(err.message).toMatch(/free plan/);
    expect((await clientFor(owner).ok.listTokens()).data.map((x) => x.id)).toEqual([owner.tokenId]);
  });
});

describe('revokeToken', () => {
  it('revokes another token of the caller immediately', async () => {
    const owner = await makeTeam(t);
    const extra = await makeToken(t, owner, ['forms:read']);
    expect((await clientFor(extra).getMe()).status).toBe(200);

    expect(await clientFor(owner).ok.revokeToken({ params: { token: extra.tokenId } })).toEqual({ ok: true });
    const after = await clientFor(extra).getMe();
    expect(after.status).toBe(401);
    expect((await clientFor(owner).ok.listTokens()).data.map((x) => x.id)).toEqual([owner.tokenId]);
    const again = await rejection(clientFor(owner).ok.revokeToken({ params: { token: extra.tokenId } }));
    expect(again).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('refuses to revoke the token making the request: 403 cannot_revoke_active_token', async () => {
    const owner = await makeTeam(t);
    const res = await clientFor(owner).revokeToken({ params: { token: owner.tokenId } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'cannot_revoke_active_token' });
    const err = await rejection(clientFor(owner).ok.revokeToken({ params: { token: owner.tokenId } }));
    expect(err.is('cannot_revoke_active_token')).toBe(true);
    expect((await clientFor(owner).ok.getMe()).data.token.id).toBe(owner.tokenId);
  });

  it("answers 403 for another member's token and 404 for another team's", async () => {
    const owner = await makeTeam(t);
    const colleague = await makeMember(t, owner.teamId, 'editor');
    const stranger = await makeTeam(t);
    const theirs = await rejection(clientFor(owner).ok.revokeToken({ params: { token: colleague.tokenId } }));
    expect(theirs).toMatchObject({ status: 403, code: 'forbidden' });
    const foreign = await rejection(clientFor(owner).ok.revokeToken({ params: { token: stranger.tokenId } }));
    expect(foreign).toMatchObject({ status: 404, code: 'not_found' });
    expect((await clientFor(colleague).getMe()).status).toBe(200);
    expect((await clientFor(stranger).getMe()).status).toBe(200);
  });
});

describe('billing', () => {
  it('getBillingTeam: the team, its plan and member count', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    await makeMember(t, owner.teamId, 'viewer');
    const me = await clientFor(owner).ok.getMe();
    const { data } = await clientFor(owner).ok.getBillingTeam();
    expect(data).toEqual({
      id: owner.teamId,
      name: me.data.team.name,
      plan: 'pro',
      members: 2,
      created_at: me.data.team.created_at,
    });
  });

  it('getBillingPlan: the seeded limits and features of each plan', async () => {
    for (const [plan, expected] of Object.entries(PLANS)) {
      const owner = await makeTeam(t, { plan });
      expect((await clientFor(owner).ok.getBillingPlan()).data).toEqual(expected);
    }
  });

  it('getBillingUsage: the current calendar month against the plan limits', async () => {
    const owner = await makeTeam(t, { plan: 'team' });
    const now = new Date();
    const { data } = await clientFor(owner).ok.getBillingUsage();
    expect(data).toEqual({
      period_start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
      period_end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
      submissions: { used: 0, limit: 25_000, remaining: 25_000 },
      forms: { used: 0, limit: 100 },
      storage_bytes: { used: 0, limit: 50 * 2 ** 30 },
    });
  });

  it('getBillingSubscription: the active subscription created with the team', async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const usage = await clientFor(owner).ok.getBillingUsage();
    const { data } = await clientFor(owner).ok.getBillingSubscription();
    expect(data).toMatchObject({
      plan: 'scale',
      status: 'active',
      cancel_at_period_end: false,
      current_period_start: usage.data.period_start,
      current_period_end: usage.data.period_end,
    });
    expect(data.id).toMatch(/^sub_/);
  });

  it("listInvoices: the team's invoices, newest first, and no one else's", async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const other = await makeTeam(t, { plan: 'pro' });
    expect((await clientFor(owner).ok.listInvoices()).data).toEqual([]);

    const insert = (teamId: string, number: string, month: number, paid: boolean) =>
      t.ctx.db.query(
        `insert into invoices (id, team_id, number, status, currency, amount_cents, period_start, period_end, issued_at, paid_at)
         values ($1, $2, $3, $4, 'usd', 1900, $5, $6, $7, $8)`,
        [
          newId('inv'),
          teamId,
          number,
          paid ? 'paid' : 'open',
          new Date(Date.UTC(2026, month, 1)),
          new Date(Date.UTC(2026, month + 1, 1)),
          new Date(Date.UTC(2026, month + 1, 1, 9)),
          paid ? new Date(Date.UTC(2026, month + 1, 2)) : null,
        ],
      );
    const suffix = owner.teamId.slice(-8);
    await insert(owner.teamId, `INV-${suffix}-1`, 0, true);
    await insert(owner.teamId, `INV-${suffix}-2`, 1, false);
    await insert(other.teamId, `INV-${other.teamId.slice(-8)}-1`, 0, true);

    const { data } = await clientFor(owner).ok.listInvoices();
    expect(data.map((i) => i.number)).toEqual([`INV-${suffix}-2`, `INV-${suffix}-1`]);
    expect(data[1]).toMatchObject({
      id: expect.stringMatching(/^inv_/),
      status: 'paid',
      currency: 'usd',
      amount_cents: 1900,
      period_start: '2026-01-01T00:00:00.000Z',
      period_end: '2026-02-01T00:00:00.000Z',
      issued_at: '2026-02-01T09:00:00.000Z',
      paid_at: '2026-02-02T00:00:00.000Z',
    });
    expect(data[0]).toMatchObject({ status: 'open', paid_at: null });
  });

  it('every billing route needs billing:read, which an editor never holds', async () => {
    const owner = await makeTeam(t);
    const editor = clientFor(await makeMember(t, owner.teamId, 'editor'));
    const calls = [
      editor.getBillingTeam,
      editor.getBillingPlan,
      editor.getBillingUsage,
      editor.getBillingSubscription,
      editor.listInvoices,
    ];
    for (const call of calls) {
      const res = await call();
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: 'forbidden', required: 'billing:read' });
    }
  });
});

describe('client', () => {
  it('has one method per contract route, plain and under .ok', () => {
    const client = createClient({ baseUrl: t.baseUrl, token: badToken });
    const methods = client as unknown as Record<string, unknown>;
    const ok = client.ok as unknown as Record<string, unknown>;
    for (const key of Object.keys(contract)) {
      expect(typeof methods[key], key).toBe('function');
      expect(typeof ok[key], `ok.${key}`).toBe('function');
    }
  });

  it('sends requests through the given fetch, with the bearer token', async () => {
    const owner = await makeTeam(t);
    const seen: { url: string; method: string; authorization: string | null }[] = [];
    const client = createClient({
      baseUrl: t.baseUrl,
      token: owner.token,
      fetch: (input, init) => {
        seen.push({
          url: String(input),
          method: init?.method ?? 'GET',
          authorization: new Headers(init?.headers).get('authorization'),
        });
        return fetch(input, init);
      },
    });
    await client.ok
      .revokeToken({ params: { token: (await makeToken(t, owner, ['forms:read'])).tokenId } })
      .catch(() => {});
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toMatch(new RegExp(`^${t.baseUrl}/v1/tokens/tok_[0-9a-z]{26}$`));
    expect(seen[0]).toMatchObject({ method: 'DELETE', authorization: `Bearer ${owner.token}` });
  });

  it('throws an IntakeError for a status the contract does not declare (a proxy error, a 500)', async () => {
    const answering = (response: () => Response) =>
      createClient({ baseUrl: 'http://intake.invalid', token: badToken, fetch: async () => response() });
    const gateway = await rejection(
      answering(
        () =>
          new Response('<h1>Bad Gateway</h1>', {
            status: 502,
            headers: { 'content-type': 'text/html', 'x-request-id': 'edge-1' },
          }),
      ).getMe(),
    );
    expect(gateway).toMatchObject({
      status: 502,
      code: 'unexpected_response',
      requestId: 'edge-1',
      message: 'Unexpected HTTP 502 response.',
    });
    const internal = await rejection(
      answering(() =>
        Response.json({ error: 'internal_error', message: 'Something went wrong.' }, { status: 500 }),
      ).getMe(),
    );
    expect(internal).toMatchObject({
      status: 500,
      code: 'internal_error',
      message: 'Something went wrong.',
      requestId: null,
    });
  });
});

describe('paginate', () => {
  it('walks every page of a paginated list, one request per page', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const created: string[] = [];
    for (let i = 1; i <= 5; i++) {
      created.push((await clientFor(owner).ok.createForm({ body: { name: `Form ${i}` } })).data.id);
    }
    const pages: string[] = [];
    const client = createClient({
      baseUrl: t.baseUrl,
      token: owner.token,
      fetch: (input, init) => {
        pages.push(new URL(String(input)).searchParams.get('page') ?? '');
        return fetch(input, init);
      },
    });
    const ids: string[] = [];
    for await (const form of paginate(client.ok.listForms, { query: { per_page: 2 } })) ids.push(form.id);
    expect(ids).toEqual([...created].reverse()); // newest first
    expect(pages).toEqual(['', '2', '3']); // the first request is the caller's own query

    const fromPage2: string[] = [];
    for await (const form of paginate(client.ok.listForms, { query: { per_page: 2, page: 2 } }))
      fromPage2.push(form.name);
    expect(fromPage2).toEqual(['Form 3', 'Form 2', 'Form 1']);
  });

  it('ends at once on an empty list', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const items = [];
    for await (const form of paginate(clientFor(owner).ok.listForms, {})) items.push(form);
    expect(items).toEqual([]);
  });
});

describe('helpers', () => {
  /** A form of `owner` with `n` submissions posted like a website would. */
  async function formWith(owner: { token: string }, n: number) {
    const form = await makePublishedForm(t, owner as never);
    for (let i = 0; i < n; i++)
      await t.http
        .post(form.endpoint)
        .set('Accept', 'application/json')
        .type('form')
        .send(`n=${i}&email=p${i}@example.com`);
    return form.id;
  }

  it('paginate walks submissions by next_cursor, never by page number', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const form = await formWith(owner, 7);
    const urls: URL[] = [];
    const client = createClient({
      baseUrl: t.baseUrl,
      token: owner.token,
      fetch: (input, init) => (urls.push(new URL(String(input))), fetch(input, init)),
    });
    const seen: string[] = [];
    for await (const s of paginate(client.ok.listSubmissions, { params: { form }, query: { per_page: 3 } }))
      seen.push(String(s.payload.n));
    expect(seen).toEqual(['6', '5', '4', '3', '2', '1', '0']);
    expect(urls).toHaveLength(3);
    expect(urls.slice(1).every((u) => u.searchParams.has('cursor') && !u.searchParams.has('page'))).toBe(true);
  });

  it('retries idempotent requests on 429 and 5xx after Retry-After, and never a POST', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    // A real proxy in front of the server: the first answer to each request is 503 (Retry-After: 1) or 429.
    let first = true;
    const seen: string[] = [];
    const proxy = http.createServer((req, res) => {
      seen.push(`${req.method} ${Date.now()}`);
      if (first) {
        first = false;
        res
          .writeHead(req.method === 'GET' ? 503 : 429, { 'retry-after': '1', 'content-type': 'application/json' })
          .end('{"error":"busy","message":"busy"}');
        return;
      }
      const upstream = http.request(`${t.baseUrl}${req.url}`, { method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode!, up.headers);
        up.pipe(res);
      });
      req.pipe(upstream);
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    try {
      const base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const client = createClient({ baseUrl: base, token: owner.token });
      const me = await client.ok.getMe();
      expect(me.data.team.id).toBe(owner.teamId);
      expect(seen).toHaveLength(2);
      expect(Number(seen[1]!.split(' ')[1]) - Number(seen[0]!.split(' ')[1])).toBeGreaterThanOrEqual(950);

      first = true;
      seen.length = 0;
      await expect(client.ok.createForm({ body: { name: 'Once' } })).rejects.toMatchObject({ status: 429 });
      expect(seen).toHaveLength(1);

      first = true;
      seen.length = 0;
      const noRetry = createClient({ baseUrl: base, token: owner.token, retry: false });
      await expect(noRetry.ok.getMe()).rejects.toMatchObject({ status: 503 });
      expect(seen).toHaveLength(1);
    } finally {
      proxy.close();
      proxy.closeAllConnections();
    }
  });

  it('timeoutMs aborts a request that takes too long', async () => {
    const hang = http.createServer(() => {});
    hang.listen(0, '127.0.0.1');
    await once(hang, 'listening');
    try {
      const client = createClient({
        baseUrl: `http://127.0.0.1:${(hang.address() as AddressInfo).port}`,
        token: badToken,
        timeoutMs: 200,
        retry: false,
      });
      const started = Date.now();
      await expect(client.getMe()).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      hang.closeAllConnections();
      hang.close();
    }
  });

  it('exportSubmissions answers a Web stream of the export, byte for byte what the REST export sends', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const form = await formWith(owner, 3);
    const stream = await clientFor(owner).exportSubmissions({ params: { form }, query: { format: 'csv' } });
    expect(stream).toBeInstanceOf(ReadableStream);
    const text = await new Response(stream).text();
    expect(text).toBe(
      (
        await t.http
          .get(`/v1/forms/${form}/submissions/export?format=csv`)
          .set('Authorization', `Bearer ${owner.token}`)
          .buffer(true)
      ).text,
    );
    expect(text.trim().split('\n')).toHaveLength(4);
    await expect(clientFor(owner).exportSubmissions({ params: { form: newId('frm') } })).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
    });
  });

  it('waitForJob polls a bulk replay until it has finished, reporting progress', async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const form = await makePublishedForm(t, owner as never);
    const client = clientFor(owner);
    const { data: hook } = await client.ok.createWebhook({
      params: { form: form.id },
      body: { label: 'R', url: 'https://127.0.0.1:9/x' },
    });
    await t.ctx.db.query(
      `insert into deliveries (id, team_id, webhook_id, event, submission_id, request_body, status, attempts)
       select 'whd_' || substr(md5(random()::text || g), 1, 26), $1, $2, 'submission.created', 'subm_' || substr(md5(g::text), 1, 26), '{}', 'dead', 7
         from generate_series(1, 3) g`,
      [owner.teamId, hook.id],
    );
    const { job_id } = await client.ok.replayWebhook({ params: { webhook_id: hook.id }, body: { status: 'dead' } });
    const progress: string[] = [];
    const waiting = client.waitForJob(job_id, { intervalMs: 50, onProgress: (j) => progress.push(j.status) });
    // What a worker runs for the job (this file's server has none).
    setTimeout(() => void runReplayJob(t.ctx, job_id), 200);
    const job = await waiting;
    expect(job).toMatchObject({ id: job_id, status: 'succeeded', total: 3, done: 3 });
    expect(progress[0]).toBe('queued');
  });
});

describe('generated and published artefacts', () => {
  it('sdk/openapi-types.ts is exactly what openapi.json generates (run `node sdk/generate-types.ts`)', async () => {
    const expected = await generateOpenApiTypes(readFileSync(OPENAPI_JSON, 'utf8'));
    expect(
      readFileSync(OPENAPI_TYPES, 'utf8') === expected,
      'sdk/openapi-types.ts is stale: run `node sdk/generate-types.ts`',
    ).toBe(true);
  });

  describe('the compiled package', () => {
    const run = promisify(execFile);
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
    let pkg = '';
    let consumer = '';
    beforeAll(() => {
      // Inside the checkout so the package's own dependencies resolve from its node_modules; sdk/dist is ignored.
      mkdirSync(path.join(root, 'sdk/dist'), { recursive: true });
      const work = mkdtempSync(path.join(root, 'sdk/dist/.package-test-'));
      pkg = path.join(work, 'package');
      consumer = path.join(work, 'consumer');
      return () => rmSync(work, { recursive: true, force: true });
    });

    it('builds with sdk/tsconfig.build.json to every file sdk/package.json exports', async () => {
      mkdirSync(pkg);
      copyFileSync(path.join(root, 'sdk/package.json'), path.join(pkg, 'package.json'));
      cpSync(path.join(root, 'sdk/browser'), path.join(pkg, 'browser'), { recursive: true }); // shipped as written
      await run(process.execPath, [
        tsc,
        '-p',
        path.join(root, 'sdk/tsconfig.build.json'),
        '--outDir',
        path.join(pkg, 'dist'),
      ]);
      const manifest = JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8')) as {
        exports: Record<string, Record<string, string>>;
      };
      const targets = Object.values(manifest.exports).flatMap((entry) => Object.values(entry));
      expect(targets.length).toBeGreaterThan(0);
      for (const target of targets) expect(existsSync(path.join(pkg, target)), target).toBe(true);
      expect(readFileSync(path.join(pkg, 'dist/sdk/index.js'), 'utf8')).toContain('from "../contract/index.js"');
    }, 120_000);

    it('packs to a tarball (README included, no server code) that a consumer installs with npm', async () => {
      copyFileSync(path.join(root, 'sdk/README.md'), path.join(pkg, 'README.md'));
      const npm = {
        env: {
          ...process.env,
          npm_config_audit: 'false',
          npm_config_fund: 'false',
          npm_config_update_notifier: 'false',
        },
      };
      const packed = await run('npm', ['pack', '--json', '--pack-destination', path.dirname(pkg)], {
        cwd: pkg,
        ...npm,
      });
      const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
        filename: string;
        files: Array<{ path: string }>;
      }>;
      const files = info!.files.map((f) => f.path);
      expect(files).toEqual(
        expect.arrayContaining([
          'README.md',
          'package.json',
          'dist/sdk/index.js',
          'dist/sdk/index.d.ts',
          'dist/contract/index.js',
          'browser/intake.js',
        ]),
      );
      expect(files.filter((f) => f.startsWith('dist/server') || (f.endsWith('.ts') && !f.endsWith('.d.ts')))).toEqual(
        [],
      );
      mkdirSync(consumer, { recursive: true });
      writeFileSync(
        path.join(consumer, 'package.json'),
        JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
      );
      // Its dependencies come from npm's cache (filled by this checkout's install) or the registry.
      await run(
        'npm',
        ['install', '--prefer-offline', '--no-package-lock', path.join(path.dirname(pkg), info!.filename)],
        { cwd: consumer, ...npm },
      );
      expect(existsSync(path.join(consumer, 'node_modules/@intake/sdk/dist/sdk/index.js'))).toBe(true);
      expect(existsSync(path.join(consumer, 'node_modules/@ts-rest/core'))).toBe(true);
    }, 180_000);

    it('type-checks (strict, exactOptionalPropertyTypes) cheaply and runs in that consumer against a live server', async () => {
      writeFileSync(
        path.join(consumer, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2023',
            lib: ['ES2023'],
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            exactOptionalPropertyTypes: true,
            noEmit: true,
            erasableSyntaxOnly: true,
            verbatimModuleSyntax: true,
            types: ['node'],
          },
          files: ['consumer.ts'],
        }),
      );
      writeFileSync(
        path.join(consumer, 'consumer.ts'),
        `import { createClient, ERROR_CODES, IntakeError, paginate, verifyWebhook, type ErrorCode, type Form, type Me } from '@intake/sdk';
import type { paths } from '@intake/sdk/openapi-types';

type MeResponse = paths['/v1/me']['get']['responses'][200]['content']['application/json'];

const baseUrl = process.env.INTAKE_URL ?? '';
const client = createClient({ baseUrl, token: process.env.INTAKE_TOKEN ?? '' });
const me: Me = (await client.ok.getMe()).data;
const plain: MeResponse = { data: me }; // the zod-inferred and the OpenAPI-generated types agree
const res = await client.getMe();
const status: 200 | 400 | 401 | 403 | 404 | 415 | 429 = res.status;
// @ts-expect-error route keys are the only methods
const missing: unknown = client.getYou;
let code = '';
try {
  await createClient({ baseUrl, token: 'intk_${'x'.repeat(40)}' }).ok.getMe();
} catch (err) {
  if (err instanceof IntakeError) code = err.code;
}
const forms: Form[] = [];
for await (const form of paginate(client.ok.listForms, { query: { per_page: 1 } })) forms.push(form);
// A named type is what the method answers.
const first: Form = (await client.ok.getForm({ params: { form: forms[0]!.id } })).data;
// Never called: a receiver narrowing the event union.
export function receive(secret: string, headers: Record<string, string>, body: string): string {
  const event = verifyWebhook(secret, headers, body);
  return event.type === 'submission.spam' ? event.spam_reason : event.type;
}
const known: readonly ErrorCode[] = ERROR_CODES;
console.log(JSON.stringify({ team: plain.data.team.id, status, missing: missing === undefined, code, forms: forms.map((f) => f.name), first: first.name, knows: known.includes('not_found') }));
`,
      );
      // Every declaration is checked (no skipLibCheck). The package's declarations are plain object types:
      // declaring the contract's zod schemas instead cost this program over 800,000 instantiations.
      const typecheck = await run(process.execPath, [tsc, '-p', consumer, '--extendedDiagnostics']).catch(
        (err: { stdout: string }) => err,
      );
      expect(typecheck.stdout).not.toMatch(/error TS/);
      const instantiations = Number(/^Instantiations:\s+(\d+)$/m.exec(typecheck.stdout)?.[1]);
      expect(instantiations).toBeLessThan(300_000);

      const owner = await makeTeam(t);
      for (const name of ['One', 'Two'])
        await createClient({ baseUrl: t.baseUrl, token: owner.token }).ok.createForm({ body: { name } });
      const { stdout } = await run(process.execPath, ['consumer.ts'], {
        cwd: consumer,
        env: { ...process.env, INTAKE_URL: t.baseUrl, INTAKE_TOKEN: owner.token },
      });
      expect(JSON.parse(stdout)).toEqual({
        team: owner.teamId,
        status: 200,
        missing: true,
        code: 'unauthenticated',
        forms: ['Two', 'One'],
        first: 'Two',
        knows: true,
      });
    }, 120_000);
  });
});
