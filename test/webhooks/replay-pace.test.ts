import { describe, expect, it } from 'vitest';
import { deadDeliverySeeder } from '../support/dead-deliveries.ts';
import { bearer } from '../support/harness.ts';
import { hookedForms, type HookedForm } from '../support/hooked-forms.ts';
import { startProcessingApp } from '../support/processing.ts';
import { eventually, workerProcesses } from '../support/worker-process.ts';

/**
 * A team's bulk replays are paced (INTAKE_REPLAY_TEAM_RATE deliveries a second, all its replay jobs
 * together): a replay of thousands cannot keep the worker and Postgres busy while other teams need them,
 * and another team's replay has an allowance of its own.
 */
const RATE = 5;
const env = { INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true', INTAKE_REPLAY_TEAM_RATE: String(RATE) };
const t = await startProcessingApp(env, { worker: false });
// `intake worker` runs the replays and sends them (it trusts the receivers' test CA), polling every 0.5 s as
// well as being woken: a replay due later than it was queued is found by a poll.
workerProcesses({ databaseUrl: t.databaseUrl, dataDir: t.dataDir, env }).start();
const hookedForm = hookedForms(t);

const deadDeliveries = deadDeliverySeeder(t, 'rp');

const replayed = async (teamId: string) =>
  (
    await t.ctx.db.query<{ n: number }>(
      'select count(*)::int as n from deliveries where team_id = $1 and replay_job_id is not null',
      [teamId],
    )
  ).rows[0]!.n;

async function replay(h: HookedForm): Promise<void> {
  const res = await t.http
    .post(`/v1/webhooks/${h.webhookId}/replay`)
    .set(bearer(h.owner.token))
    .send({ status: 'dead' });
  expect(res.status, res.text).toBe(202);
}

describe("a team's bulk replays", { timeout: 60_000 }, () => {
  it('queue at most INTAKE_REPLAY_TEAM_RATE deliveries a second, all its jobs together; another team replays at its own pace', async () => {
    const a = await hookedForm();
    await deadDeliveries(a.owner.teamId, a.webhookId, 200);
    const c = await hookedForm();
    await deadDeliveries(c.owner.teamId, c.webhookId, 8);

    const started = Date.now();
    // Two jobs of the same team (the replay of one webhook twice over) share the team's pace.
    await replay(a);
    await replay(a);
    await eventually(
      () => replayed(a.owner.teamId),
      (n) => n > 0,
      10_000,
    );
    await replay(c);
    // Team C's 8 are all queued at once: A's pace is A's alone.
    await eventually(
      () => replayed(c.owner.teamId),
      (n) => n === 8,
      10_000,
    );

    await new Promise((r) => setTimeout(r, 4_000));
    const seconds = (Date.now() - started) / 1000;
    const queued = await replayed(a.owner.teamId);
    // Each 5-second window holds 5 × RATE; the run spans at most seconds / 5 + 2 of them.
    const most = (Math.floor(seconds / 5) + 2) * 5 * RATE;
    expect(queued, `${queued} replays queued in ${seconds.toFixed(1)} s`).toBeLessThanOrEqual(most);
    // It goes on at its pace.
    await eventually(
      () => replayed(a.owner.teamId),
      (n) => n > queued,
      10_000,
    );
  });

  it('go out one after another across each window, not in a burst as each window opens', async () => {
    const d = await hookedForm();
    await deadDeliveries(d.owner.teamId, d.webhookId, 30);
    await replay(d);
    const msOf = async (sql: string) =>
      (await t.ctx.db.query<{ ms: number }>(sql, [d.owner.teamId])).rows.map((r) => r.ms);
    // When each replay's attempt was due (its job's start): 1/RATE s apart, across both windows. Due all at
    // once, a window's 25 went out within half a second.
    const due = await eventually(
      () =>
        msOf(`select (extract(epoch from j.start_after) * 1000)::float8 as ms from pgboss.job j join deliveries r on r.id = j.data->>'deliveryId'
               where j.name = 'deliver-webhook' and r.team_id = $1 and r.replay_job_id is not null order by 1`),
      (ms) => ms.length === 30,
      20_000,
    );
    const gaps = due.slice(1).map((ms, i) => Math.round(ms - due[i]!));
    expect(Math.min(...gaps), `gaps ${gaps.join(', ')} ms`).toBeGreaterThanOrEqual(1000 / RATE - 1);
    // And sent so: all 30 delivered, over at least the pace's time.
    const sent = await eventually(
      () =>
        msOf(
          `select (extract(epoch from delivered_at) * 1000)::float8 as ms from deliveries where team_id = $1 and replay_job_id is not null and delivered_at is not null order by 1`,
        ),
      (ms) => ms.length === 30,
      20_000,
    );
    expect(sent.at(-1)! - sent[0]!).toBeGreaterThanOrEqual((29 * 1000) / RATE - 500);
  });
});
