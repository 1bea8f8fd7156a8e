import { describe, expect, it } from 'vitest';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, startTestApp, seed } from '../support/harness.ts';

/**
 * A suggested schema reads a bounded sample of a form's payloads, in bytes as well as rows: a form whose
 * submissions each hold a megabyte is sampled a few megabytes deep, not a thousand rows (a gigabyte) deep.
 */
const t = await startTestApp();

describe('the suggested schema on large payloads', () => {
  it(
    'reads a few megabytes of them, whatever the rows hold, and the process grows by little',
    { timeout: 120_000 },
    async () => {
      const owner = await makeTeam(t);
      const form = await makePublishedForm(t, owner);
      // 100 submissions of 16 fields of ~60 KB of hex each (~1 MB a row, stored about as large: hex barely compresses).
      await seed(
        t,
        `insert into submissions (id, team_id, form_id, status, payload, received_at)
       select 'subm_' || substr(md5(random()::text || g), 1, 26), $1, $2, 'processed',
              (select jsonb_object_agg('field_' || f, (select string_agg(md5(random()::text || g || f || k), '') from generate_series(1, 1900) k))
                 from generate_series(1, 16) f),
              now() - g * interval '1 second'
         from generate_series(1, 100) g`,
        [owner.teamId, form.id],
      );
      const before = process.memoryUsage.rss();
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 2);
      const res = await t.http.get(`/v1/forms/${form.id}/schema/suggested`).set(bearer(owner.token));
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage.rss());
      expect(res.status).toBe(200);
      expect(res.body.data.fields).toHaveLength(16);
      expect(res.body.data.fields[0]).toEqual({ name: 'field_1', type: 'text', required: true });
      // 4 MiB of payload text: four or five of the hundred rows.
      expect(res.body.meta.sampled).toBeGreaterThanOrEqual(3);
      expect(res.body.meta.sampled).toBeLessThanOrEqual(6);
      // Reading all hundred (100 MB of text, and its parsed copy) grows the process by hundreds of megabytes.
      expect(peak - before).toBeLessThan(60 * 1024 * 1024);
    },
  );
});
