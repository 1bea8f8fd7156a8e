import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { WEBHOOKS_PER_FORM } from '../../server/domain/webhooks/webhooks.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeMember, makeTeam, makeToken, startTestApp } from '../support/harness.ts';

// The default: private webhook addresses refused (INTAKE_ALLOW_PRIVATE_WEBHOOKS unset). A public IP literal needs no DNS.
const t = await startTestApp();
const PUBLIC_URL = 'https://93.184.215.14/hooks/intake';

async function setup() {
  const owner = await makeTeam(t, { plan: 'scale' });
  const form = await makePublishedForm(t, owner);
  const base = `/v1/forms/${form.id}/webhooks`;
  return { owner, form, base };
}

async function webhookRows(formId: string) {
  const { rows } = await t.ctx.db.query<Record<string, unknown>>(
    'select * from webhooks where form_id = $1 order by id',
    [formId],
  );
  return rows;
}

describe('webhooks API', () => {
  it('creates a webhook with defaults and returns its secret once; the database holds it encrypted, hashed and by its last four', async () => {
    const { owner, form, base } = await setup();
    const res = await t.http.post(base).set(bearer(owner.token)).send({ label: 'CRM', url: PUBLIC_URL });
    expect(res.status, res.text).toBe(201);
    const secret = res.body.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(res.body.data).toMatchObject({
      form_id: form.id,
      label: 'CRM',
      url: PUBLIC_URL,
      provider: 'webhook',
      active: true,
      deactivated_reason: null,
      config: {},
      events: ['submission.created'],
      secret_last4: secret.slice(-4),
    });
    expect(res.body.data.id).toMatch(/^wh_[0-9a-z]{26}$/);

    const shown = await t.http.get(`${base}/${res.body.data.id}`).set(bearer(owner.token));
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual({ data: res.body.data });
    expect(shown.text).not.toContain(secret.slice(6, 20));
    const listed = await t.http.get(base).set(bearer(owner.token));
    expect(listed.body).toEqual({ data: [res.body.data] });

    const [row] = await webhookRows(form.id);
    expect(JSON.stringify(row)).not.toContain(secret.slice(6));
    expect(row!.secret_hash).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(row!.secret_encrypted).toMatch(/^v1\./);
  });

  it('takes every provider with its own config, and refuses unknown providers, unknown config keys and bad values (400, nothing stored)', async () => {
    const { owner, form, base } = await setup();
    const ok = [
      { provider: 'slack', config: { channel: '#leads', username: 'Intake', icon_emoji: ':inbox_tray:' } },
      { provider: 'discord', config: { username: 'Intake', avatar_url: 'https://example.com/a.png' } },
      { provider: 'teams', config: {} },
      { provider: 'zapier' },
      { provider: 'make' },
      { provider: 'webhook', events: ['submission.created', 'ai-insights.regenerated'] },
    ];
    for (const body of ok) {
      const res = await t.http
        .post(base)
        .set(bearer(owner.token))
        .send({ label: body.provider, url: PUBLIC_URL, ...body });
      expect(res.status, `${body.provider}: ${res.text}`).toBe(201);
      expect(res.body.data.provider).toBe(body.provider);
    }
    const before = (await webhookRows(form.id)).length;
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ provider: 'pagerduty' }, 'provider'],
      [{ provider: 'slack', config: { channel: '#ok', webhook_url: 'x' } }, 'config'],
      [{ provider: 'slack', config: { channel: 'two words' } }, 'config.channel'],
      [{ provider: 'discord', config: { avatar_url: 'http://example.com/a.png' } }, 'config.avatar_url'],
      [{ provider: 'teams', config: { title: 'x' } }, 'config'],
      [{ provider: 'webhook', config: { secret: 'mine' } }, 'config'],
      [{ events: ['submission.deleted'] }, 'events'],
      [{ events: 'submission.created' }, 'events'],
      [{ url: 'http://93.184.215.14/hook' }, 'url'],
      [{ url: 'ftp://93.184.215.14/hook' }, 'url'],
      [{ url: 'https://user:pass@93.184.215.14/hook' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ label: '' }, 'label'],
    ];
    for (const [body, path] of bad) {
      const res = await t.http
        .post(base)
        .set(bearer(owner.token))
        .send({ label: 'bad', url: PUBLIC_URL, ...body });
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(JSON.stringify(res.body.details), JSON.stringify(body)).toContain(path.split('.')[0]);
    }
    expect(await webhookRows(form.id)).toHaveLength(before);
  });

  it('refuses URLs that reach private, loopback, link-local, CGNAT, metadata or multicast addresses, in any notation', async () => {
    const { owner, form, base } = await setup();
    const urls = [
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://2130706433/hook',
      'https://0177.0.0.1/hook',
      'https://0x7f.1/hook',
      'https://10.0.0.8/hook',
      'https://172.16.5.4/hook',
      'https://192.168.1.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.0.1/hook',
      'https://224.0.0.1/hook',
      'https://0.0.0.0/hook',
      'https://[fd00:ec2::254]/hook',
      'https://[fe80::1]/hook',
    ];
    for (const url of urls) {
      const res = await t.http.post(base).set(bearer(owner.token)).send({ label: 'ssrf', url });
      expect(res.status, `${url}: ${res.text}`).toBe(400);
      expect(res.body.details, url).toEqual([expect.objectContaining({ in: 'body', path: 'url' })]);
    }
    // The same rule on update.
    const created = await t.http.post(base).set(bearer(owner.token)).send({ label: 'ok', url: PUBLIC_URL });
    const moved = await t.http
      .put(`${base}/${created.body.data.id}`)
      .set(bearer(owner.token))
      .send({ url: 'https://127.0.0.1/hook' });
    expect(moved.status).toBe(400);
    expect((await webhookRows(form.id))[0]!.url).toBe(PUBLIC_URL);
  });

  it('updates only what is sent, checks config against the provider it will have, and rotates the secret (the old one signs 24 h more)', async () => {
    const { owner, form, base } = await setup();
    const created = await t.http.post(base).set(bearer(owner.token)).send({ label: 'Chat', url: PUBLIC_URL });
    const path = `${base}/${created.body.data.id}`;

    const relabelled = await t.http.put(path).set(bearer(owner.token)).send({ label: 'Sales chat', active: false });
    expect(relabelled.status, relabelled.text).toBe(200);
    expect(relabelled.body.data).toMatchObject({
      label: 'Sales chat',
      active: false,
      url: PUBLIC_URL,
      provider: 'webhook',
    });
    expect(relabelled.body.secret).toBeUndefined();

    // Slack with the current (empty) config is fine; a Discord-only key is not.
    expect((await t.http.put(path).set(bearer(owner.token)).send({ provider: 'slack' })).status).toBe(200);
    const wrong = await t.http
      .put(path)
      .set(bearer(owner.token))
      .send({ config: { avatar_url: 'https://example.com/a.png' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/slack/);

    const rotated = await t.http.put(path).set(bearer(owner.token)).send({ rotate_secret: true });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect(rotated.body.data.secret_last4).toBe((rotated.body.secret as string).slice(-4));
    const [row] = await t.ctx.db
      .query<{ hours: number; hash: string }>(
        `select extract(epoch from previous_secret_expires_at - now()) / 3600 as hours, secret_hash as hash from webhooks where id = $1`,
        [created.body.data.id],
      )
      .then((r) => r.rows);
    expect(Number(row!.hours)).toBeGreaterThan(23.9);
    expect(Number(row!.hours)).toBeLessThanOrEqual(24);
    expect(row!.hash).toBe(createHash('sha256').update(rotated.body.secret).digest('hex'));

    // Reactivation clears the service's reason.
    await t.ctx.db.query(`update webhooks set active = false, deactivated_reason = 'gone' where id = $1`, [
      created.body.data.id,
    ]);
    const back = await t.http.put(path).set(bearer(owner.token)).send({ active: true });
    expect(back.body.data).toMatchObject({ active: true, deactivated_reason: null });
    expect((await webhookRows(form.id))[0]!.failing_since).toBeNull();
  });

  it('deletes a webhook (still shown by id with deleted_at, gone from the list, 404 to change) and scopes every webhook to its form and team', async () => {
    const { owner, base } = await setup();
    const other = await makePublishedForm(t, owner);
    const created = await t.http.post(base).set(bearer(owner.token)).send({ label: 'x', url: PUBLIC_URL });
    const id = created.body.data.id as string;
    // Under another form of the same team: not found.
    expect((await t.http.get(`/v1/forms/${other.id}/webhooks/${id}`).set(bearer(owner.token))).status).toBe(404);
    const stranger = await makeTeam(t, { plan: 'scale' });
    expect((await t.http.get(`${base}/${id}`).set(bearer(stranger.token))).status).toBe(404);
    expect((await t.http.get(`${base}/wh_not-an-id`).set(bearer(owner.token))).status).toBe(404);

    const deleted = await t.http.delete(`${base}/${id}`).set(bearer(owner.token));
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ ok: true });
    const shown = await t.http.get(`${base}/${id}`).set(bearer(owner.token));
    expect(shown.status).toBe(200);
    expect(shown.body.data).toMatchObject({ id, deleted_at: expect.any(String) });
    expect((await t.http.put(`${base}/${id}`).set(bearer(owner.token)).send({ label: 'y' })).status).toBe(404);
    expect((await t.http.get(base).set(bearer(owner.token))).body).toEqual({ data: [] });
    expect((await t.http.delete(`${base}/${id}`).set(bearer(owner.token))).status).toBe(404);
  });

  it(`keeps a form to ${WEBHOOKS_PER_FORM} webhooks`, async () => {
    const { owner, base } = await setup();
    const made = await Promise.all(
      Array.from({ length: WEBHOOKS_PER_FORM + 3 }, (_, i) =>
        t.http
          .post(base)
          .set(bearer(owner.token))
          .send({ label: `h${i}`, url: PUBLIC_URL }),
      ),
    );
    expect(made.filter((r) => r.status === 201)).toHaveLength(WEBHOOKS_PER_FORM);
    expect(made.filter((r) => r.status === 400).map((r) => r.body.message)).toEqual(
      Array(3).fill(expect.stringMatching(/at most 20/)),
    );
  });

  it('needs webhooks:read to read and webhooks:write to change; a viewer reads but cannot create', async () => {
    const { owner, base } = await setup();
    const reader = await makeToken(t, owner, ['webhooks:read']);
    expect((await t.http.get(base).set(bearer(reader.token))).status).toBe(200);
    const denied = await t.http.post(base).set(bearer(reader.token)).send({ label: 'x', url: PUBLIC_URL });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: 'forbidden', required: 'webhooks:write' });
    const viewer = await makeMember(t, owner.teamId, 'viewer');
    expect((await t.http.get(base).set(bearer(viewer.token))).status).toBe(200);
    expect((await t.http.post(base).set(bearer(viewer.token)).send({ label: 'x', url: PUBLIC_URL })).status).toBe(403);
  });

  it("GET /v1/jobs/{id} shows the caller's team's job, 403 without the ability its type needs, 404 for another team's", async () => {
    const { owner, base } = await setup();
    const created = await t.http.post(base).set(bearer(owner.token)).send({ label: 'x', url: PUBLIC_URL });
    const queued = await t.http
      .post(`/v1/webhooks/${created.body.data.id}/replay`)
      .set(bearer(owner.token))
      .send({ status: 'dead' });
    expect(queued.status, queued.text).toBe(202);
    expect(queued.body).toEqual({ job_id: expect.stringMatching(/^job_[0-9a-z]{26}$/), status: 'queued' });
    const job = await t.http.get(`/v1/jobs/${queued.body.job_id}`).set(bearer(owner.token));
    expect(job.status).toBe(200);
    expect(job.body.data).toMatchObject({
      id: queued.body.job_id,
      type: 'webhook_replay',
      total: 0,
      done: 0,
      failed: 0,
      errors: [],
    });
    const noRead = await makeToken(t, owner, ['forms:read', 'submissions:read']);
    const forbidden = await t.http.get(`/v1/jobs/${queued.body.job_id}`).set(bearer(noRead.token));
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ error: 'forbidden', required: 'webhooks:read' });
    const stranger = await makeTeam(t, { plan: 'scale' });
    expect((await t.http.get(`/v1/jobs/${queued.body.job_id}`).set(bearer(stranger.token))).status).toBe(404);
  });
});
