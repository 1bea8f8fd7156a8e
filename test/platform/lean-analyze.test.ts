import { expect, it } from 'vitest';
import { wideColumns } from '../../server/infra/db/migrations/0019-lean-analyze.ts';
import { deadDeliverySeeder } from '../support/dead-deliveries.ts';
import { startTestApp } from '../support/harness.ts';
import { hookedForms } from '../support/hooked-forms.ts';

/**
 * ANALYZE builds no statistics for the wide columns nothing filters on (migration 0019): autovacuum's
 * re-analyses of the busiest tables stay short bursts (bench/README.md, noisy-neighbour). The columns
 * that are filtered keep theirs.
 */
const t = await startTestApp({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' });
const hookedForm = hookedForms(t);

it('analyzes submissions and deliveries without their payloads and bodies, and with the columns queries filter on', async () => {
  const { owner, endpoint, webhookId } = await hookedForm();
  for (let i = 0; i < 30; i++) {
    const res = await t.http
      .post(endpoint)
      .set('Accept', 'application/json')
      .send({ email: `visitor${i}@example.com`, message: `Hello number ${i}, about pricing` });
    expect(res.status).toBe(201);
  }
  await deadDeliverySeeder(t, 'leananalyze')(owner.teamId, webhookId, 30);
  await t.ctx.db.query('analyze submissions');
  await t.ctx.db.query('analyze deliveries');

  const { rows } = await t.ctx.db.query<{ tablename: string; attname: string }>(
    `select tablename, attname from pg_stats where schemaname = current_schema() and tablename in ('submissions', 'deliveries')`,
  );
  const analyzed = new Set(rows.map((r) => `${r.tablename}.${r.attname}`));
  for (const [table, column] of wideColumns) expect(analyzed, `${table}.${column}`).not.toContain(`${table}.${column}`);
  for (const kept of [
    'submissions.form_id',
    'submissions.received_at',
    'submissions.status',
    'submissions.search',
    'deliveries.webhook_id',
    'deliveries.status',
  ]) {
    expect(analyzed, kept).toContain(kept);
  }
});
