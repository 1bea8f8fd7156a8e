import { describe, expect, it } from 'vitest';
import { appRefusingMultiShard } from '../support/citus-app.ts';
import { bearer, makeTeam } from '../support/harness.ts';

/**
 * On a Citus cluster (`make test-citus`), the request paths routed by team so far run on one shard each: the
 * app's database refuses every statement that would run on more than one (`citus.multi_task_query_log_level`
 * = error), so a statement that is not routed fails the request. Skipped on plain Postgres.
 */
const app = await appRefusingMultiShard();
const t = app!;
const citus = app !== null;

describe.runIf(citus)('on Citus, a request reads and writes one team’s shard', () => {
  it('the public endpoint: a post, its status, a preflight, refused ids', async () => {
    const owner = await makeTeam(t);
    const created = await t.http.post('/v1/forms').set(bearer(owner.token)).send({ name: 'Contact' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const form = created.body.data.id as string;
    const draft = await t.http.post(`/f/${form}`).set('Accept', 'application/json').send({ email: 'a@example.com' });
    expect(draft.status).toBe(404);
    expect(draft.body.message).toContain('not published');
    expect((await t.http.post(`/v1/forms/${form}/publish`).set(bearer(owner.token))).status).toBe(200);

    const posted = await t.http.post(`/f/${form}`).set('Accept', 'application/json').send({ email: 'a@example.com' });
    expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    const status = await t.http.get(`/f/${form}/status`);
    expect(status.status).toBe(200);
    expect(status.body.open).toBe(true);
    const unknown = await t.http.post('/f/frm_00000000000000000000000000').send({ email: 'a@example.com' });
    expect(unknown.status).toBe(404);
  });

  it('posts that replay a key, hold a unique value, fill a form, carry a file, trip the honeypot, or come from a server', async () => {
    const owner = await makeTeam(t);
    const created = await t.http
      .post('/v1/forms')
      .set(bearer(owner.token))
      .send({ name: 'Raffle', settings: { unique: [{ fields: ['email'], normalize: 'email' }], max_submissions: 2 } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const form = created.body.data.id as string;
    expect((await t.http.post(`/v1/forms/${form}/publish`).set(bearer(owner.token))).status).toBe(200);
    const post = (body: Record<string, string>, key?: string) => {
      const req = t.http.post(`/f/${form}`).set('Accept', 'application/json');
      return (key ? req.set('Idempotency-Key', key) : req).send(body);
    };

    const first = await post({ email: 'ada@example.com' }, 'k1');
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const again = await post({ email: 'ada@example.com' }, 'k1');
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    const duplicate = await post({ email: 'ADA@example.com' });
    expect(duplicate.status, JSON.stringify(duplicate.body)).toBe(409);
    const spam = await post({ email: 'bot@example.com', _gotcha: 'filled' });
    expect(spam.status).toBe(201);
    const withFile = await t.http
      .post(`/f/${form}`)
      .set('Accept', 'application/json')
      .field('email', 'grace@example.com')
      .attach('cv', Buffer.from('%PDF-1.4 cv'), { filename: 'cv.pdf' });
    expect(withFile.status, JSON.stringify(withFile.body)).toBe(201);
    const full = await post({ email: 'alan@example.com' });
    expect(full.status, JSON.stringify(full.body)).toBe(403);
    expect((await t.http.get(`/f/${form}/status`)).body).toMatchObject({ open: false, reason: 'limit_reached' });

    const other = await t.http.post('/v1/forms').set(bearer(owner.token)).send({ name: 'Server' });
    const server = other.body.data.id as string;
    expect((await t.http.post(`/v1/forms/${server}/publish`).set(bearer(owner.token))).status).toBe(200);
    const submitted = await t.http
      .post(`/v1/forms/${server}/submissions`)
      .set(bearer(owner.token))
      .send({ fields: { email: 'ada@example.com' } });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
  });
});
