import { describe, expect, it } from 'vitest';
import { appRefusingMultiShard } from '../support/citus-app.ts';
import { bearer, makeTeam } from '../support/harness.ts';

/**
 * On a Citus cluster, the forms, account, billing and insights APIs each run on the caller's team's shard: the
 * database refuses every statement that would run on more than one (test/citus/routing.test.ts). Skipped on
 * plain Postgres.
 */
const app = await appRefusingMultiShard();
const t = app!;
const citus = app !== null;

describe.runIf(citus)('on Citus, the forms and account APIs read and write one team’s shard', () => {
  it('forms: create, list, read, change, publish, unpublish, trash, restore, fields, force delete', async () => {
    const owner = await makeTeam(t);
    const api = () => ({
      get: (p: string) => t.http.get(p).set(bearer(owner.token)),
      post: (p: string, body: object = {}) => t.http.post(p).set(bearer(owner.token)).send(body),
      put: (p: string, body: object) => t.http.put(p).set(bearer(owner.token)).send(body),
      del: (p: string) => t.http.delete(p).set(bearer(owner.token)),
    });
    const created = await api().post('/v1/forms', { name: 'Contact' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const form = created.body.data.id as string;
    expect((await api().get('/v1/forms')).body.data.map((f: { id: string }) => f.id)).toEqual([form]);
    expect((await api().get(`/v1/forms/${form}`)).body.data.name).toBe('Contact');
    const renamed = await api().put(`/v1/forms/${form}`, { name: 'Contact us', settings: { honeypot_field: '_trap' } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.data.name).toBe('Contact us');
    expect((await api().post(`/v1/forms/${form}/publish`)).body.data.status).toBe('published');

    for (const email of ['ada@example.com', 'grace@example.com']) {
      const posted = await t.http
        .post(`/f/${form}`)
        .set('Accept', 'application/json')
        .send({ email, message: 'Hello' });
      expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    }
    const shown = await api().get(`/v1/forms/${form}`);
    expect(shown.body.data.submissions_count).toBe(2);
    const fields = await api().get(`/v1/forms/${form}/fields`);
    expect(fields.status, JSON.stringify(fields.body)).toBe(200);
    expect(fields.body.data.map((f: { name: string }) => f.name)).toEqual(['email', 'message']);
    const pruned = await api().post(`/v1/forms/${form}/fields/prune`);
    expect(pruned.status, JSON.stringify(pruned.body)).toBe(200);
    expect(pruned.body.data.removed).toEqual([]);
    const suggested = await api().get(`/v1/forms/${form}/schema/suggested`);
    expect(suggested.status, JSON.stringify(suggested.body)).toBe(200);

    expect((await api().post(`/v1/forms/${form}/unpublish`)).body.data.status).toBe('draft');
    expect((await api().del(`/v1/forms/${form}`)).status).toBe(200);
    expect((await api().get(`/v1/forms?trashed=only`)).body.data.map((f: { id: string }) => f.id)).toEqual([form]);
    expect((await api().post(`/v1/forms/${form}/restore`)).status).toBe(200);
    const forced = await api().del(`/v1/forms/${form}/force`);
    expect(forced.status, JSON.stringify(forced.body)).toBe(200);
    expect((await api().get(`/v1/forms/${form}`)).status).toBe(404);
    expect((await t.http.post(`/f/${form}`).send({ email: 'late@example.com' })).status).toBe(404);
  });

  it('the caller, tokens, billing and insights', async () => {
    const owner = await makeTeam(t);
    const get = (p: string) => t.http.get(p).set(bearer(owner.token));
    const me = await get('/v1/me');
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    const minted = await t.http
      .post('/v1/tokens')
      .set(bearer(owner.token))
      .send({ name: 'deploy', abilities: ['forms:read'] });
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    const listed = await get('/v1/tokens');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((x: { name: string }) => x.name)).toContain('deploy');
    expect((await get('/v1/forms').set(bearer(minted.body.token))).status).toBe(200);
    expect((await t.http.delete(`/v1/tokens/${minted.body.data.id}`).set(bearer(owner.token))).status).toBe(200);
    expect((await t.http.get('/v1/forms').set(bearer(minted.body.token))).status).toBe(401);

    for (const p of ['/v1/billing/plan', '/v1/billing/subscription', '/v1/billing/team', '/v1/billing/usage']) {
      const res = await get(p);
      expect(res.status, `${p}: ${JSON.stringify(res.body)}`).toBe(200);
    }
    expect((await get('/v1/billing/invoices')).status).toBe(200);
    const insights = await get('/v1/ai-insights');
    expect([200, 404], JSON.stringify(insights.body)).toContain(insights.status);
  });
});
