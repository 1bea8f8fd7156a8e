import { describe, expect, it } from 'vitest';
import { ABILITIES } from '../../contract/abilities.ts';
import { newId } from '../../server/domain/shared/ids.ts';
import { setTeamPlan } from '../../server/domain/accounts/teams.ts';
import { addMember } from '../../server/domain/accounts/users.ts';
import { PLANS } from '../support/plans.ts';
import { bearer, makeMember, makeTeam, makeToken, startTestApp, type TestMember } from '../support/harness.ts';

const t = await startTestApp();

const ROUTES = [
  '/v1/billing/team',
  '/v1/billing/plan',
  '/v1/billing/usage',
  '/v1/billing/subscription',
  '/v1/billing/invoices',
];

async function sql<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
  return (await t.ctx.db.query<T & object>(text, params)).rows;
}

/** The calendar month in UTC, computed here rather than borrowed from the code under test. */
function thisMonth(now = new Date()) {
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
  };
}

async function get(member: TestMember, path: string) {
  const res = await t.http.get(path).set(bearer(member.token));
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  return res.body.data;
}

async function insertForm(teamId: string, opts: { deleted?: boolean } = {}): Promise<string> {
  const id = newId('frm');
  await sql(
    `insert into forms (id, team_id, name, deleted_at) values ($1, $2, $3, ${opts.deleted ? 'now()' : 'null'})`,
    [id, teamId, `Form ${id}`],
  );
  await sql('insert into form_teams (form_id, team_id) values ($1, $2)', [id, teamId]);
  return id;
}

async function insertSubmission(teamId: string, formId: string): Promise<string> {
  const id = newId('subm');
  await sql(
    `insert into submissions (id, team_id, form_id, status, payload) values ($1, $2, $3, 'received', '{}'::jsonb)`,
    [id, teamId, formId],
  );
  return id;
}

async function insertFile(teamId: string, formId: string, submissionId: string, sizeBytes: number) {
  await sql(
    `insert into submission_files (id, team_id, form_id, submission_id, field, filename, content_type, size_bytes, storage_key)
     values ($1, $2, $3, $4, 'upload', 'a.pdf', 'application/pdf', $5, $6)`,
    [newId('file'), teamId, formId, submissionId, sizeBytes, `test/${newId('file')}`],
  );
}

describe('GET /v1/billing/plan', () => {
  for (const [plan, expected] of Object.entries(PLANS)) {
    it(`returns the ${plan} plan's price, limits and features`, async () => {
      const owner = await makeTeam(t, { plan });
      expect(await get(owner, '/v1/billing/plan')).toEqual(expected);
    });
  }

  it('follows a plan change', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    await setTeamPlan(t.ctx, owner.teamId, 'scale');
    expect(await get(owner, '/v1/billing/plan')).toEqual(PLANS.scale);
    expect((await get(owner, '/v1/billing/subscription')).plan).toBe('scale');
    expect((await get(owner, '/v1/billing/team')).plan).toBe('scale');
  });
});

describe('GET /v1/billing/team', () => {
  it('returns the team with its member count', async () => {
    const owner = await makeTeam(t, { plan: 'team' });
    const [team] = await sql<{ name: string }>('select name from teams where id = $1', [owner.teamId]);
    const one = await get(owner, '/v1/billing/team');
    expect(one).toEqual({
      id: owner.teamId,
      name: team!.name,
      plan: 'team',
      members: 1,
      created_at: expect.any(String),
    });
    expect(Math.abs(Date.parse(one.created_at) - Date.now())).toBeLessThan(60_000);

    await makeMember(t, owner.teamId, 'viewer');
    await makeMember(t, owner.teamId, 'editor');
    await makeTeam(t); // another team's members do not count
    expect((await get(owner, '/v1/billing/team')).members).toBe(3);
  });
});

describe('GET /v1/billing/subscription', () => {
  it('exists for a new team, active, on the current calendar month', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const period = thisMonth();
    const sub = await get(owner, '/v1/billing/subscription');
    expect(sub).toEqual({
      id: expect.stringMatching(/^sub_/),
      plan: 'pro',
      status: 'active',
      current_period_start: period.start.toISOString(),
      current_period_end: period.end.toISOString(),
      cancel_at_period_end: false,
      created_at: expect.any(String),
    });
    const [row] = await sql<{ id: string }>('select id from subscriptions where team_id = $1', [owner.teamId]);
    expect(sub.id).toBe(row!.id);
  });

  it('rolls an ended period over to the current month when read', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    await sql(
      `update subscriptions set current_period_start = '2020-01-01T00:00:00Z', current_period_end = '2020-02-01T00:00:00Z' where team_id = $1`,
      [owner.teamId],
    );
    const period = thisMonth();
    const sub = await get(owner, '/v1/billing/subscription');
    expect(sub.current_period_start).toBe(period.start.toISOString());
    expect(sub.current_period_end).toBe(period.end.toISOString());
  });
});

describe('GET /v1/billing/usage', () => {
  it('starts at zero for a new team, against the plan limits', async () => {
    const owner = await makeTeam(t, { plan: 'team' });
    const period = thisMonth();
    expect(await get(owner, '/v1/billing/usage')).toEqual({
      period_start: period.start.toISOString(),
      period_end: period.end.toISOString(),
      submissions: { used: 0, limit: 25000, remaining: 25000 },
      forms: { used: 0, limit: 100 },
      storage_bytes: { used: 0, limit: 53687091200 },
    });
  });

  it('is computed from the database: this period counter, live forms, stored file bytes', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const period = thisMonth();
    const live1 = await insertForm(owner.teamId);
    await insertForm(owner.teamId);
    const deleted = await insertForm(owner.teamId, { deleted: true });
    // The counter is sharded: usage is the sum of this period's shards.
    await sql(
      'insert into usage_counters (team_id, period_start, shard, submissions) values ($1, $2, 0, $3), ($4, $5, 3, $6)',
      [owner.teamId, period.start, 1200, owner.teamId, period.start, 34],
    );
    // Last month's counter is history, not usage.
    const lastMonth = new Date(Date.UTC(period.start.getUTCFullYear(), period.start.getUTCMonth() - 1, 1));
    await sql('insert into usage_counters (team_id, period_start, shard, submissions) values ($1, $2, 0, $3)', [
      owner.teamId,
      lastMonth,
      999,
    ]);
    const s1 = await insertSubmission(owner.teamId, live1);
    await insertFile(owner.teamId, live1, s1, 1000);
    await insertFile(owner.teamId, live1, s1, 2345);
    // Files of a form in the trash are still stored, so they still count.
    const s2 = await insertSubmission(owner.teamId, deleted);
    await insertFile(owner.teamId, deleted, s2, 5_000_000_000);

    // Another team's rows never leak in.
    const stranger = await makeTeam(t, { plan: 'pro' });
    const theirs = await insertForm(stranger.teamId);
    await sql('insert into usage_counters (team_id, period_start, shard, submissions) values ($1, $2, 0, $3)', [
      stranger.teamId,
      period.start,
      7,
    ]);
    await insertFile(stranger.teamId, theirs, await insertSubmission(stranger.teamId, theirs), 77);

    expect(await get(owner, '/v1/billing/usage')).toEqual({
      period_start: period.start.toISOString(),
      period_end: period.end.toISOString(),
      submissions: { used: 1234, limit: 5000, remaining: 3766 },
      forms: { used: 2, limit: 25 },
      storage_bytes: { used: 5_000_003_345, limit: 10737418240 },
    });
    const theirUsage = await get(stranger, '/v1/billing/usage');
    expect(theirUsage.submissions.used).toBe(7);
    expect(theirUsage.forms.used).toBe(1);
    expect(theirUsage.storage_bytes.used).toBe(77);

    // Restoring a form from the trash counts it again.
    await sql('update forms set deleted_at = null where id = $1', [deleted]);
    expect((await get(owner, '/v1/billing/usage')).forms.used).toBe(3);
  });

  it('never reports negative remaining submissions, and null for unlimited plans', async () => {
    const free = await makeTeam(t, { plan: 'free' });
    await sql('insert into usage_counters (team_id, period_start, shard, submissions) values ($1, $2, 0, $3)', [
      free.teamId,
      thisMonth().start,
      60,
    ]);
    expect((await get(free, '/v1/billing/usage')).submissions).toEqual({ used: 60, limit: 50, remaining: 0 });

    const scale = await makeTeam(t, { plan: 'scale' });
    await sql('insert into usage_counters (team_id, period_start, shard, submissions) values ($1, $2, 0, $3)', [
      scale.teamId,
      thisMonth().start,
      100_000,
    ]);
    const usage = await get(scale, '/v1/billing/usage');
    expect(usage.submissions).toEqual({ used: 100_000, limit: null, remaining: null });
    expect(usage.forms.limit).toBeNull();
    expect(usage.storage_bytes.limit).toBeNull();
  });
});

describe('GET /v1/billing/invoices', () => {
  it('is empty for a new team', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    expect(await get(owner, '/v1/billing/invoices')).toEqual([]);
  });

  it('lists the team invoices newest first', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const stranger = await makeTeam(t, { plan: 'pro' });
    const rows = [
      { issued: '2026-02-01T00:00:00.000Z', status: 'paid', paid: '2026-02-03T10:00:00.000Z', amount: 1900 },
      { issued: '2026-04-01T00:00:00.000Z', status: 'open', paid: null, amount: 4900 },
      { issued: '2026-03-01T00:00:00.000Z', status: 'void', paid: null, amount: 0 },
    ];
    const ids: string[] = [];
    for (const r of rows) {
      const id = newId('inv');
      ids.push(id);
      const start = new Date(Date.parse(r.issued));
      start.setUTCMonth(start.getUTCMonth() - 1);
      await sql(
        `insert into invoices (id, team_id, number, status, currency, amount_cents, period_start, period_end, issued_at, paid_at)
         values ($1, $2, $3, $4, 'usd', $5, $6, $7, $8, $9)`,
        [id, owner.teamId, `INV-${id}`, r.status, r.amount, start.toISOString(), r.issued, r.issued, r.paid],
      );
    }
    await sql(
      `insert into invoices (id, team_id, number, status, currency, amount_cents, period_start, period_end, issued_at)
       values ($1, $2, $3, 'paid', 'usd', 1, now(), now(), now())`,
      [newId('inv'), stranger.teamId, `INV-${newId('inv')}`],
    );

    const list = await get(owner, '/v1/billing/invoices');
    expect(list.map((i: { id: string }) => i.id)).toEqual([ids[1], ids[2], ids[0]]);
    expect(list[2]).toEqual({
      id: ids[0],
      number: `INV-${ids[0]}`,
      status: 'paid',
      currency: 'usd',
      amount_cents: 1900,
      period_start: '2026-01-01T00:00:00.000Z',
      period_end: '2026-02-01T00:00:00.000Z',
      issued_at: '2026-02-01T00:00:00.000Z',
      paid_at: '2026-02-03T10:00:00.000Z',
    });
    expect(list[0]).toMatchObject({ status: 'open', amount_cents: 4900, paid_at: null });
  });
});

describe('billing:read', () => {
  it('is required on every billing route', async () => {
    const owner = await makeTeam(t, { plan: 'team' });
    const noBilling = await makeToken(
      t,
      owner,
      ABILITIES.filter((a) => a !== 'billing:read'),
    );
    for (const path of ROUTES) {
      const res = await t.http.get(path).set(bearer(noBilling.token));
      expect(res.status, path).toBe(403);
      expect(res.body).toMatchObject({ error: 'forbidden', message: expect.any(String) });
      expect((await t.http.get(path)).status, path).toBe(401);
    }
  });

  it('is beyond an editor, whose ceiling excludes it, even on a token minted before a demotion', async () => {
    const owner = await makeTeam(t, { plan: 'team' });
    const editor = await makeMember(t, owner.teamId, 'editor');
    const admin = await makeMember(t, owner.teamId, 'admin');
    expect(await get(admin, '/v1/billing/plan')).toEqual(PLANS.team);
    const [row] = await sql<{ email: string }>('select email from users where id = $1', [admin.userId]);
    await addMember(t.ctx, { email: row!.email, name: 'Demoted', teamId: owner.teamId, role: 'editor' });
    for (const path of ROUTES) {
      expect((await t.http.get(path).set(bearer(editor.token))).status, path).toBe(403);
      expect((await t.http.get(path).set(bearer(admin.token))).status, path).toBe(403);
    }
  });
});
