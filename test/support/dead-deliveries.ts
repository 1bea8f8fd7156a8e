import type { TestApp } from './harness.ts';

/**
 * A seeder of dead deliveries, as the engine leaves them after a receiver's outage (each of its own
 * submission, an hour old, attempts spent): what a bulk replay sends again. `tag` keeps one file's ids apart
 * from another's; each call takes the next ids.
 */
export function deadDeliverySeeder(t: TestApp, tag: string): (teamId: string, webhookId: string, n: number) => Promise<void> {
  let seeded = 0;
  return async (teamId, webhookId, n) => {
    const from = seeded;
    seeded += n;
    await t.ctx.db.query(
      `insert into deliveries (id, team_id, webhook_id, event, submission_id, request_body, status, attempts, created_at)
       select 'whd_' || $5::text || lpad(to_hex(g), 24, '0'), $1, $2, 'submission.created', 'subm_' || $5::text || lpad(to_hex(g), 24, '0'),
              json_build_object('n', g)::text, 'dead', 2, now() - interval '1 hour'
         from generate_series($3::int + 1, $3::int + $4::int) g`,
      [teamId, webhookId, from, n, tag],
    );
  };
}
