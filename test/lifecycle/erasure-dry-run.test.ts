import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient } from '../../sdk/index.ts';
import { DRY_RUN_IDS, runErasure } from '../../server/domain/lifecycle/erasure.ts';
import { newId } from '../../server/domain/shared/ids.ts';
import { runCli, userEnv } from '../support/cli.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeMember, makeTeam, type TestMember } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';
import { call, errorOf } from '../support/mcp-tools.ts';

// A dry run answers 200 at once with what a real run would erase — by the same search — and
// writes nothing; the real run stays a 202 job.
const t = await startLiveTestApp({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' });
const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.close();
});

async function mcp(token: string): Promise<Client> {
  const client = new Client({ name: 'erasure-dry-run-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { requestInit: { headers: bearer(token) } }),
  );
  clients.push(client);
  return client;
}

async function post(endpoint: string, fields: Record<string, string>, file = false): Promise<string> {
  let req = t.http.post(endpoint).set('Accept', 'application/json');
  for (const [k, v] of Object.entries(fields)) req = req.field(k, v);
  if (file) req = req.attach('cv', Buffer.from('%PDF-1.7 cv'), { filename: 'cv.pdf', contentType: 'application/pdf' });
  const res = await req;
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

/** What the team's erasure requests and jobs hold: a dry run adds to neither. */
async function written(teamId: string) {
  const q = async (table: string) =>
    (await t.ctx.db.query<{ n: number }>(`select count(*)::int as n from ${table} where team_id = $1`, [teamId]))
      .rows[0]!.n;
  return {
    erasures: await q('erasure_requests'),
    jobs: await q('jobs'),
    submissions: await q('submissions'),
    deliveries: await q('deliveries'),
  };
}

/** Erasure jobs in the queue, whoever sent them. */
async function queuedErasures(): Promise<number> {
  return (await t.ctx.db.query<{ n: number }>(`select count(*)::int as n from pgboss.job where name = 'erase-data'`))
    .rows[0]!.n;
}

/** Ada's data in two forms (one trashed), with a file and a delivered webhook body; others' data beside it. */
async function scene(owner: TestMember) {
  const other = await makeTeam(t);
  const contact = await makePublishedForm(t, owner);
  const jobs = await makePublishedForm(t, owner);
  const theirs = await makePublishedForm(t, other);
  const a1 = await post(contact.endpoint, { email: 'Ada@Example.com', message: 'hi' });
  const a2 = await post(jobs.endpoint, { note: 'reach me at ada@example.com, thanks' });
  const a3 = await post(jobs.endpoint, { contact: 'ada@example.com' }, true);
  await post(contact.endpoint, { email: 'bada@example.com' });
  await post(contact.endpoint, { email: 'grace@example.com' }, true);
  await post(theirs.endpoint, { email: 'ada@example.com' });
  const hook = await t.http
    .post(`/v1/forms/${contact.id}/webhooks`)
    .set(bearer(owner.token))
    .send({ label: 'CRM', url: 'https://127.0.0.1:9/hook' });
  expect(hook.status, hook.text).toBe(201);
  for (const [body, submission] of [
    ['{"email":"Ada@Example.com"}', a1],
    [null, a1],
  ] as const) {
    await t.ctx.db.query(
      `insert into deliveries (id, team_id, webhook_id, event, submission_id, request_body, status, attempts)
       values ($1, $2, $3, 'submission.created', $4, $5, 'dead', 7)`,
      [newId('whd'), owner.teamId, hook.body.data.id, submission, body],
    );
  }
  // A trashed form is searched too, as the real run does.
  expect((await t.http.delete(`/v1/forms/${jobs.id}`).set(bearer(owner.token))).status).toBe(200);
  const order = [...[contact.id, jobs.id]].sort();
  const idsInOrder = order.flatMap((f) => (f === contact.id ? [a1] : [a2, a3]));
  return { contact: contact.id, jobs: jobs.id, forms: order, idsInOrder };
}

describe('POST /v1/erasure with dry_run', () => {
  it('answers 200 at once with what a real run would erase, writes nothing, and the real run then erases exactly that', async () => {
    const owner = await makeTeam(t);
    const s = await scene(owner);
    const before = await written(owner.teamId);
    const queuedBefore = await queuedErasures();

    const dry = await t.http
      .post('/v1/erasure')
      .set(bearer(owner.token))
      .send({ email: 'ada@example.com', dry_run: true });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body).toEqual({
      data: {
        dry_run: true,
        submissions: 3,
        files: 1,
        deliveries_redacted: 1,
        forms: s.forms,
        submission_ids: s.idsInOrder,
      },
    });
    expect(await written(owner.teamId)).toEqual(before);
    expect(await queuedErasures()).toBe(queuedBefore);
    // It asks what a real run asks: owners and admins only, one of email and value.
    const editor = await makeMember(t, owner.teamId, 'editor');
    const refused = await t.http.post('/v1/erasure').set(bearer(editor.token)).send({ value: 'x-1', dry_run: true });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('forbidden');
    const both = await t.http
      .post('/v1/erasure')
      .set(bearer(owner.token))
      .send({ email: 'a@b.co', value: 'xyz', dry_run: true });
    expect(both.status).toBe(400);

    // The real run: still a job, and it erases what the dry run reported.
    const real = await t.http.post('/v1/erasure').set(bearer(owner.token)).send({ email: 'ada@example.com' });
    expect(real.status, real.text).toBe(202);
    expect(Object.keys(real.body).sort()).toEqual(['erasure_id', 'job_id']);
    await runErasure(t.ctx, real.body.erasure_id);
    const receipt = await t.http.get(`/v1/erasure/${real.body.erasure_id}`).set(bearer(owner.token));
    expect(receipt.body.data.erased).toEqual({
      submissions: 3,
      files: 1,
      deliveries_redacted: 1,
      forms: { [s.contact]: 1, [s.jobs]: 2 },
    });
    const again = await t.http
      .post('/v1/erasure')
      .set(bearer(owner.token))
      .send({ email: 'ada@example.com', dry_run: true });
    expect(again.body).toEqual({
      data: { dry_run: true, submissions: 0, files: 0, deliveries_redacted: 0, forms: [], submission_ids: [] },
    });
  });

  it(`counts every match but lists the first ${DRY_RUN_IDS} ids, in the order the job erases them`, async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const n = DRY_RUN_IDS + 7;
    const { rows } = await t.ctx.db.query<{ id: string }>(
      `insert into submissions (id, team_id, form_id, status, payload, received_at)
       select $4 || lpad(g::text, 26 - length($4) + 5, '0'), $1, $2, 'processed',
              jsonb_build_object('order', 'ORD-' || g, 'items', jsonb_build_array('x', 'ORD-4242')), $3::timestamptz + (($5::int - g) || ' seconds')::interval
         from generate_series(1, $5::int) g
       returning id`,
      [owner.teamId, form.id, new Date('2030-01-01T00:00:00Z'), 'subm_', n],
    );
    expect(rows).toHaveLength(n);
    const res = await t.http.post('/v1/erasure').set(bearer(owner.token)).send({ value: 'ORD-4242', dry_run: true });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      dry_run: true,
      submissions: n,
      files: 0,
      deliveries_redacted: 0,
      forms: [form.id],
    });
    // Oldest first: the row numbered n was received first.
    const oldestFirst = rows.map((r) => r.id).reverse();
    expect(res.body.data.submission_ids).toEqual(oldestFirst.slice(0, DRY_RUN_IDS));
  });

  it('answers the same through the MCP tool, the SDK and the CLI, whose real runs stay jobs', async () => {
    const owner = await makeTeam(t);
    const s = await scene(owner);
    const expected = {
      dry_run: true,
      submissions: 3,
      files: 1,
      deliveries_redacted: 1,
      forms: s.forms,
      submission_ids: s.idsInOrder,
    };

    const client = await mcp(owner.token);
    const viaMcp = await call(client, 'create_erasure', { email: 'ada@example.com', dry_run: true });
    expect(errorOf(viaMcp)).toBeNull();
    expect(viaMcp.structuredContent).toEqual({ data: expected });

    const sdk = createClient({ baseUrl: t.baseUrl, token: owner.token });
    const raw = await sdk.createErasure({ body: { email: 'ada@example.com', dry_run: true } });
    expect(raw.status).toBe(200);
    if (raw.status === 200) expect(raw.body.data).toEqual(expected);
    expect(await written(owner.teamId)).toMatchObject({ erasures: 0, jobs: 0 });

    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'intake-erasure-cli-'));
    try {
      const env = userEnv(home, { url: t.baseUrl, token: owner.token });
      const cli = await runCli(['erasure', 'create', '--email', 'ada@example.com', '--dry-run', '--json'], env);
      expect(cli.code, cli.stderr).toBe(0);
      expect(JSON.parse(cli.stdout)).toEqual(expected);
      const shown = await runCli(['erasure', 'create', '--email', 'ada@example.com', '--dry-run'], env);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain(s.idsInOrder[0]);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
    expect(await written(owner.teamId)).toMatchObject({ erasures: 0, jobs: 0 });

    // The real run through the tool is a job (its result has no single output schema to break).
    const realMcp = await call(client, 'create_erasure', { value: 'nothing-matches-this' });
    expect(errorOf(realMcp)).toBeNull();
    expect(Object.keys(realMcp.structuredContent ?? {}).sort()).toEqual(['erasure_id', 'job_id']);
    const realSdk = await sdk.ok.createErasure({ body: { value: 'nothing-matches-this' } });
    expect('job_id' in realSdk && realSdk.job_id).toMatch(/^job_/);
  });
});
