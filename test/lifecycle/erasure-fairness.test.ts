import { describe, expect, it } from 'vitest';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, type TestMember, seed } from '../support/harness.ts';
import { startProcessingApp } from '../support/processing.ts';
import { eventually, workerProcesses } from '../support/worker-process.ts';

/**
 * Erasure is metered per team: a team's real runs take turns with other teams' in the job queue, and its
 * dry runs (each a scan of all its submissions) run one at a time, a second apart.
 */
// No worker until the requests are queued: the order they then run in is the queue's alone.
const t = await startProcessingApp({ INTAKE_API_RATE_LIMIT: '10000' }, { worker: false });
const workers = workerProcesses({ databaseUrl: t.databaseUrl, dataDir: t.dataDir, env: { LOG_LEVEL: 'info' } });

/** A team with one form holding `n` submissions, none of which any erasure below matches. */
async function teamWithSubmissions(n: number): Promise<TestMember> {
  const owner = await makeTeam(t);
  const form = await makePublishedForm(t, owner);
  await seed(
    t,
    `insert into submissions (id, team_id, form_id, status, payload, received_at)
     select 'subm_' || substr(md5(random()::text || g), 1, 26), $1, $2, 'processed',
            jsonb_build_object('email', 'person' || g || '@example.com', 'message', repeat('a few words of text ', 10)), now() - g * interval '1 second'
       from generate_series(1, $3::int) g`,
    [owner.teamId, form.id, n],
  );
  return owner;
}

const requestErasure = async (member: TestMember, email: string) => {
  const res = await t.http.post('/v1/erasure').set(bearer(member.token)).send({ email });
  expect(res.status, res.text).toBe(202);
  return res.body.erasure_id as string;
};

describe('erasure across teams', () => {
  it("one team's queued erasures do not hold back another team's: they take turns", { timeout: 120_000 }, async () => {
    const a = await teamWithSubmissions(2_000);
    const b = await teamWithSubmissions(10);
    const flood: string[] = [];
    for (let i = 0; i < 20; i++) flood.push(await requestErasure(a, `nobody${i}@example.org`));
    const mine = await requestErasure(b, 'nobody@example.org');
    workers.start();

    const finished = async (ids: string[]) =>
      (
        await t.ctx.db.query<{ id: string; finished_at: Date | null }>(
          'select id, finished_at from erasure_requests where id = any($1)',
          [ids],
        )
      ).rows;
    await eventually(
      () => finished([...flood, mine]),
      (rows) => rows.every((r) => r.finished_at !== null),
      100_000,
    );
    const rows = await finished([...flood, mine]);
    const bDone = new Date(rows.find((r) => r.id === mine)!.finished_at!).getTime();
    const aBefore = rows.filter((r) => r.id !== mine && new Date(r.finished_at!).getTime() < bDone).length;
    // In arrival order, B's would run after all 20 of A's; in turns, after A's first.
    expect(aBefore).toBeLessThanOrEqual(1);
  });

  it(
    "a team's dry runs run one at a time, a second apart; another team's pass beside them",
    { timeout: 60_000 },
    async () => {
      const a = await teamWithSubmissions(10);
      const b = await teamWithSubmissions(10);
      const dry = async (member: TestMember) => {
        const res = await t.http
          .post('/v1/erasure')
          .set(bearer(member.token))
          .send({ email: 'nobody@example.org', dry_run: true });
        expect(res.status, res.text).toBe(200);
        expect(res.body.data).toMatchObject({ dry_run: true, submissions: 0 });
        return performance.now();
      };
      const started = performance.now();
      const [first, second, other] = await Promise.all([dry(a), dry(a), dry(b)]);
      expect(Math.max(first, second) - started).toBeGreaterThanOrEqual(950);
      expect(other - started).toBeLessThan(900);
    },
  );
});
