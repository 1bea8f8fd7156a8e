import type { TestApp } from './harness.ts';

/**
 * A seeder of dead deliveries, as the engine leaves them after a receiver's outage (attempts spent): what a
 * bulk replay sends again. `tag` keeps one file's ids apart from another's; each call takes the next
 * delivery ids and answers them. Each delivery is of a submission of its own, created `ago` (an SQL
 * interval, an hour by default) before now; with `submissionsOf` (delivery ids, `n` of them), the i-th is a
 * later delivery of the i-th one's submission instead.
 */
export function deadDeliverySeeder(
  t: TestApp,
  tag: string,
): (
  teamId: string,
  webhookId: string,
  n: number,
  opts?: { ago?: string; submissionsOf?: string[] },
) => Promise<string[]> {
  let seeded = 0;
  return async (teamId, webhookId, n, opts = {}) => {
    const from = seeded;
    seeded += n;
    const { rows } = await t.ctx.db.query<{ id: string }>(
      `insert into deliveries (id, team_id, webhook_id, event, submission_id, request_body, status, attempts, created_at)
       select 'whd_' || $5::text || lpad(to_hex(g), 24, '0'), $1, $2, 'submission.created',
              coalesce((select d.submission_id from deliveries d where d.id = ($6::text[])[g - $3::int]), 'subm_' || $5::text || lpad(to_hex(g), 24, '0')),
              json_build_object('n', g)::text, 'dead', 2, now() - $7::interval
         from generate_series($3::int + 1, $3::int + $4::int) g
       returning id`,
      [teamId, webhookId, from, n, tag, opts.submissionsOf ?? null, opts.ago ?? '1 hour'],
    );
    return rows.map((r) => r.id);
  };
}
