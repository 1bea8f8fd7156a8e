import { describe, expect, it } from 'vitest';
import { makePublishedForm } from '../support/forms.ts';
import { makeTeam } from '../support/harness.ts';
import { startProcessingApp, submission } from '../support/processing.ts';

// Polling every 60 s: a submission processed within a few seconds can only have been woken.
const t = await startProcessingApp({ INTAKE_QUEUE_POLL_SECONDS: '60' });

describe('job wake-up after commit', () => {
  it('wakes an idle worker through LISTEN/NOTIFY right after the ingest transaction commits', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    // Let the worker go idle in its (long) poll first.
    await new Promise((r) => setTimeout(r, 1500));
    for (let round = 0; round < 3; round++) {
      const started = Date.now();
      const res = await t.http
        .post(form.endpoint)
        .set('Accept', 'application/json')
        .type('form')
        .send(`message=hello+${round}`);
      expect(res.status).toBe(201);
      let status = 'received';
      while (status === 'received' && Date.now() - started < 10_000) {
        await new Promise((r) => setTimeout(r, 25));
        status = (await submission(t, res.body.id)).status;
      }
      expect(status).toBe('processed');
      expect(Date.now() - started).toBeLessThan(5_000);
    }
  });
});
