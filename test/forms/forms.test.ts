import { describe, expect, it } from 'vitest';
import { bearer, makeMember, makeTeam, makeToken, startTestApp } from '../support/harness.ts';

const t = await startTestApp();

async function createForm(token: string, body: Record<string, unknown> = { name: 'Contact' }) {
  return t.http.post('/v1/forms').set(bearer(token)).send(body);
}

describe('forms API', () => {
  it('creates a draft form with defaults and an endpoint URL', async () => {
    const owner = await makeTeam(t);
    const res = await createForm(owner.token, { name: 'Contact us', notification_emails: ['team@example.com'] });
    expect(res.status).toBe(201);
    const form = res.body.data;
    expect(form.id).toMatch(/^frm_[0-9a-z]{26}$/);
    expect(form).toMatchObject({
      name: 'Contact us',
      status: 'draft',
      endpoint_url: `http://intake.test/f/${form.id}`,
      notification_emails: ['team@example.com'],
      submissions_count: 0,
      deleted_at: null,
      settings: {
        redirect_url: null,
        honeypot_field: '_gotcha',
        allowed_origins: [],
        custom_rules: { blocked_emails: [], keywords: [], regex: [] },
        ai_threshold: 0.75,
      },
    });
    const shown = await t.http.get(`/v1/forms/${form.id}`).set(bearer(owner.token));
    expect(shown.status).toBe(200);
    expect(shown.body.data).toEqual(form);
  });

  it('validates name, e-mails and settings with field details', async () => {
    const owner = await makeTeam(t);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ name: 'ok', notification_emails: ['not-an-email'] }, 'notification_emails.0'],
      [
        { name: 'ok', notification_emails: Array.from({ length: 11 }, (_, i) => `a${i}@example.com`) },
        'notification_emails',
      ],
      [{ name: 'ok', settings: { ai_threshold: 2 } }, 'settings.ai_threshold'],
      [{ name: 'ok', settings: { custom_rules: { regex: ['(unclosed'] } } }, 'settings.custom_rules.regex.0'],
      // RE2 (what custom rules run on) has no lookaround and no backreferences.
      [{ name: 'ok', settings: { custom_rules: { regex: ['spam(?=!)'] } } }, 'settings.custom_rules.regex.0'],
      [{ name: 'ok', settings: { custom_rules: { regex: ['ok', '(a)\\1'] } } }, 'settings.custom_rules.regex.1'],
      [
        { name: 'ok', settings: { custom_rules: { regex: Array.from({ length: 11 }, (_, i) => `r${i}`) } } },
        'settings.custom_rules.regex',
      ],
      [{ name: 'ok', settings: { allowed_origins: ['https://example.com/path'] } }, 'settings.allowed_origins.0'],
    ];
    for (const [body, path] of cases) {
      const res = await createForm(owner.token, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    const list = await t.http.get('/v1/forms').set(bearer(owner.token));
    expect(list.body.meta.total).toBe(0);
  });

  it('takes only an absolute http(s) redirect_url, on create and on update; a refused one changes nothing', async () => {
    const owner = await makeTeam(t);
    const refused = [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      ' javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'https:evil.example',
      '//evil.example/thanks',
      'ftp://example.com/thanks',
    ];
    for (const url of refused) {
      const res = await createForm(owner.token, { name: 'Contact', settings: { redirect_url: url } });
      expect(res.status, url).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details).toContainEqual({
        in: 'body',
        path: 'settings.redirect_url',
        message: 'Must be an absolute http:// or https:// URL.',
      });
    }
    expect((await t.http.get('/v1/forms').set(bearer(owner.token))).body.meta.total).toBe(0);

    const created = await createForm(owner.token, {
      name: 'Contact',
      settings: { redirect_url: 'https://example.com/thanks' },
    });
    expect(created.status).toBe(201);
    const form = created.body.data;
    expect(form.settings.redirect_url).toBe('https://example.com/thanks');
    for (const url of refused) {
      const res = await t.http
        .put(`/v1/forms/${form.id}`)
        .set(bearer(owner.token))
        .send({ name: 'Renamed', settings: { redirect_url: url } });
      expect(res.status, url).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain('settings.redirect_url');
    }
    expect((await t.http.get(`/v1/forms/${form.id}`).set(bearer(owner.token))).body.data).toEqual(form);

    for (const url of ['http://example.com/thanks', 'HTTPS://example.com/merci?lang=fr#top']) {
      const res = await t.http
        .put(`/v1/forms/${form.id}`)
        .set(bearer(owner.token))
        .send({ settings: { redirect_url: url } });
      expect(res.status, url).toBe(200);
      expect(res.body.data.settings.redirect_url).toBe(url);
    }
  });

  it('updates settings by merging, publishes, unpublishes', async () => {
    const owner = await makeTeam(t);
    const { body } = await createForm(owner.token);
    const id = body.data.id;
    const upd = await t.http
      .put(`/v1/forms/${id}`)
      .set(bearer(owner.token))
      .send({ settings: { redirect_url: 'https://example.com/thanks', custom_rules: { keywords: ['casino'] } } });
    expect(upd.status).toBe(200);
    expect(upd.body.data.settings).toMatchObject({
      redirect_url: 'https://example.com/thanks',
      honeypot_field: '_gotcha',
      custom_rules: { keywords: ['casino'], regex: [], blocked_emails: [] },
    });
    const upd2 = await t.http.put(`/v1/forms/${id}`).set(bearer(owner.token)).send({ name: 'Renamed' });
    expect(upd2.body.data.settings.custom_rules.keywords).toEqual(['casino']);
    expect(upd2.body.data.name).toBe('Renamed');
    expect((await t.http.post(`/v1/forms/${id}/publish`).set(bearer(owner.token))).body.data.status).toBe('published');
    expect((await t.http.post(`/v1/forms/${id}/unpublish`).set(bearer(owner.token))).body.data.status).toBe('draft');
  });

  it('soft-deletes to the trash, lists with ?trashed, restores', async () => {
    const owner = await makeTeam(t);
    const a = (await createForm(owner.token, { name: 'A' })).body.data;
    const b = (await createForm(owner.token, { name: 'B' })).body.data;
    expect((await t.http.delete(`/v1/forms/${a.id}`).set(bearer(owner.token))).body).toEqual({ ok: true });
    const live = await t.http.get('/v1/forms').set(bearer(owner.token));
    expect(live.body.data.map((f: { id: string }) => f.id)).toEqual([b.id]);
    const only = await t.http.get('/v1/forms?trashed=only').set(bearer(owner.token));
    expect(only.body.data.map((f: { id: string }) => f.id)).toEqual([a.id]);
    expect(only.body.data[0].deleted_at).not.toBeNull();
    const all = await t.http.get('/v1/forms?trashed=with').set(bearer(owner.token));
    expect(all.body.meta.total).toBe(2);
    expect((await t.http.put(`/v1/forms/${a.id}`).set(bearer(owner.token)).send({ name: 'x' })).status).toBe(404);
    const restored = await t.http.post(`/v1/forms/${a.id}/restore`).set(bearer(owner.token));
    expect(restored.status).toBe(200);
    expect(restored.body.data.deleted_at).toBeNull();
    expect((await t.http.get('/v1/forms?trashed=bogus').set(bearer(owner.token))).status).toBe(400);
  });

  it('paginates newest first with links and meta', async () => {
    const owner = await makeTeam(t);
    for (const name of ['one', 'two', 'three']) await createForm(owner.token, { name });
    const p1 = await t.http.get('/v1/forms?per_page=2').set(bearer(owner.token));
    expect(p1.body.data.map((f: { name: string }) => f.name)).toEqual(['three', 'two']);
    expect(p1.body.meta).toEqual({ current_page: 1, per_page: 2, total: 3, last_page: 2 });
    expect(p1.body.links.next).toBe('http://intake.test/v1/forms?page=2&per_page=2');
    expect(p1.body.links.prev).toBeNull();
    const p2 = await t.http.get('/v1/forms?per_page=2&page=2').set(bearer(owner.token));
    expect(p2.body.data.map((f: { name: string }) => f.name)).toEqual(['one']);
    expect((await t.http.get('/v1/forms?per_page=101').set(bearer(owner.token))).status).toBe(400);
  });

  it('enforces the plan form limit with 402', async () => {
    const owner = await makeTeam(t, { plan: 'free' });
    for (let i = 0; i < 3; i++) expect((await createForm(owner.token, { name: `f${i}` })).status).toBe(201);
    const over = await createForm(owner.token, { name: 'one too many' });
    expect(over.status).toBe(402);
    expect(over.body.error).toBe('plan_limit_reached');
  });

  it('force delete is for owners and admins only, and erases the form', async () => {
    const owner = await makeTeam(t);
    const editor = await makeMember(t, owner.teamId, 'editor');
    const form = (await createForm(owner.token, { name: 'Raffle', settings: { unique: [{ fields: ['email'] }] } })).body
      .data;
    expect((await t.http.post(`/v1/forms/${form.id}/publish`).set(bearer(owner.token))).status).toBe(200);
    const posted = await t.http
      .post(`/f/${form.id}`)
      .set('Accept', 'application/json')
      .send({ email: 'ada@example.com' });
    expect(posted.status, posted.text).toBe(201);
    const keys = async () =>
      (
        await t.ctx.db.query<{ n: number }>(
          'select count(*)::int as n from submission_unique_keys where team_id = $1 and submission_id = $2',
          [owner.teamId, posted.body.id],
        )
      ).rows[0]!.n;
    expect(await keys()).toBe(1);
    const denied = await t.http.delete(`/v1/forms/${form.id}/force`).set(bearer(editor.token));
    expect(denied.status).toBe(403);
    const ok = await t.http.delete(`/v1/forms/${form.id}/force`).set(bearer(owner.token));
    expect(ok.status).toBe(200);
    expect((await t.http.get(`/v1/forms/${form.id}`).set(bearer(owner.token))).status).toBe(404);
    // Its submissions' unique keys went with it.
    expect(await keys()).toBe(0);
  });

  it("hides another team's forms (404) and needs the form abilities", async () => {
    const a = await makeTeam(t);
    const b = await makeTeam(t);
    const form = (await createForm(a.token)).body.data;
    for (const [method, path] of [
      ['get', `/v1/forms/${form.id}`],
      ['put', `/v1/forms/${form.id}`],
      ['delete', `/v1/forms/${form.id}`],
      ['post', `/v1/forms/${form.id}/publish`],
      ['delete', `/v1/forms/${form.id}/force`],
    ] as const) {
      const res = await t.http[method](path)
        .set(bearer(b.token))
        .send(method === 'put' ? { name: 'x' } : undefined);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const readOnly = await makeToken(t, a, ['forms:read']);
    expect((await createForm(readOnly.token)).status).toBe(403);
  });
});
