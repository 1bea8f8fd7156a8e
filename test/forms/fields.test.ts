import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { pruneFields } from '../../server/infra/db/queries/forms.ts';
import { processSubmission } from '../../server/domain/submissions/processing.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, startTestApp } from '../support/harness.ts';

const t = await startTestApp({ INTAKE_INGEST_RATE_LIMIT: '10000', INTAKE_INGEST_FLOOD_LIMIT: '10000' });

const post = (endpoint: string, names: string[], extra = '') =>
  t.http
    .post(endpoint)
    .set('Accept', 'application/json')
    .type('form')
    .send(names.map((n) => `${n}=v`).join('&') + extra);
const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('the field names a form learns', () => {
  it('spam teaches none', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    expect((await post(form.endpoint, ['email', 'message'])).status).toBe(201);
    expect((await post(form.endpoint, names('bot', 50), '&_gotcha=filled')).status).toBe(201);
    const fields = await t.http.get(`/v1/forms/${form.id}/fields`).set(bearer(owner.token));
    expect(fields.status).toBe(200);
    expect(fields.body.data.map((f: { name: string }) => f.name)).toEqual(['email', 'message']);
    expect(fields.body.meta).toEqual({ count: 2, limit: 500, overflow: false });
  });

  it('stop at 500 for the life of the form, and pruning frees room', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const ids: string[] = [];
    for (const prefix of ['a', 'b', 'c']) {
      const res = await post(form.endpoint, names(prefix, 200));
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    let fields = await t.http.get(`/v1/forms/${form.id}/fields`).set(bearer(owner.token));
    expect(fields.body.meta).toEqual({ count: 500, limit: 500, overflow: true });
    expect(fields.body.data.at(-1).name).toBe('c99');
    // The payload keeps every field, learned or not.
    const third = await t.http.get(`/v1/forms/${form.id}/submissions/${ids[2]}`).set(bearer(owner.token));
    expect(Object.keys(third.body.data.payload)).toHaveLength(200);

    // Deleting submissions does not give room back by itself: the names stay learned…
    await t.http.delete(`/v1/forms/${form.id}/submissions/${ids[0]}`).set(bearer(owner.token));
    expect((await post(form.endpoint, ['late'])).status).toBe(201);
    fields = await t.http.get(`/v1/forms/${form.id}/fields`).set(bearer(owner.token));
    expect(fields.body.meta.count).toBe(500);
    expect(fields.body.data.map((f: { name: string }) => f.name)).not.toContain('late');

    // …pruning does: the first post's names go, and names past the limit are learned in their place.
    const pruned = await t.http.post(`/v1/forms/${form.id}/fields/prune`).set(bearer(owner.token));
    expect(pruned.status).toBe(200);
    expect(pruned.body.data.removed).toHaveLength(200);
    expect(pruned.body.meta).toEqual({ count: 401, limit: 500, overflow: false });
    fields = await t.http.get(`/v1/forms/${form.id}/fields`).set(bearer(owner.token));
    expect(fields.body.data.map((f: { name: string }) => f.name)).toEqual(expect.arrayContaining(['c199', 'late']));
  });

  it("a prune under way holds back no post (a process's posts share one statement); a name it could not learn, its processing learns", async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    expect((await post(form.endpoint, ['email', 'message'])).status).toBe(201);
    const answered = (res: Promise<{ status: number; body: { id: string } }>) =>
      Promise.race([res, sleep(5_000).then(() => ({ status: 'held back', body: { id: '' } }))]);
    let learner = '';
    await t.ctx.db.transaction(async (tx) => {
      await pruneFields(tx, owner.teamId, form.id); // the form's row stays locked until this transaction ends
      expect((await answered(post(form.endpoint, ['email', 'message']))).status).toBe(201);
      const res = await answered(post(form.endpoint, ['email', 'phone']));
      expect(res.status).toBe(201);
      learner = res.body.id;
    });
    const learned = async () => {
      const fields = await t.http.get(`/v1/forms/${form.id}/fields`).set(bearer(owner.token));
      return fields.body.data.map((f: { name: string }) => f.name);
    };
    expect(await learned()).toEqual(['email', 'message']);
    expect(await processSubmission(t.ctx, learner)).toBe('processed');
    expect(await learned()).toEqual(['email', 'message', 'phone']);
  });

  it('an edit (PUT) past the limit keeps the value without learning the name', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    for (const prefix of ['a', 'b']) expect((await post(form.endpoint, names(prefix, 200))).status).toBe(201);
    const last = await post(form.endpoint, names('c', 100));
    const edited = await t.http
      .put(`/v1/forms/${form.id}/submissions/${last.body.id}`)
      .set(bearer(owner.token))
      .send({ payload: { note: 'added by hand' } });
    expect(edited.status).toBe(200);
    expect(edited.body.data.payload.note).toBe('added by hand');
    const fields = await t.http.get(`/v1/forms/${form.id}/fields`).set(bearer(owner.token));
    expect(fields.body.meta).toEqual({ count: 500, limit: 500, overflow: true });
  });
});

describe('the CSV export of a form past the limit', () => {
  it('works for any stored submission: learned fields as columns, the rest in _other', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    // 9 posts × 200 new names used to make the export fail for good (1,664 columns at most).
    for (let i = 0; i < 9; i++) expect((await post(form.endpoint, names(`p${i}_`, 200))).status).toBe(201);
    const res = await t.http
      .get(`/v1/forms/${form.id}/submissions/export?format=csv`)
      .set(bearer(owner.token))
      .buffer(true);
    expect(res.status).toBe(200);
    const [header, ...rows] = res.text.trim().split('\n');
    const columns = header!.split(',');
    expect(columns).toHaveLength(5 + 500 + 2 + 4);
    expect(columns.slice(-6)).toEqual(['_other', '_files', '_tags', '_stage', '_assignee', '_rules']);
    expect(rows).toHaveLength(9);
    // The last post learned nothing: all its fields are in _other, as JSON.
    const last = rows.find((r) => r.includes('p8_0'))!;
    expect(last).toContain('""p8_199"": ""v""');
  });
});
