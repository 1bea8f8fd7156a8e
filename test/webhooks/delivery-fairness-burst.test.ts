import { describe, expect, it } from 'vitest';
import { hookedForms } from '../support/hooked-forms.ts';
import { postForm, startProcessingApp } from '../support/processing.ts';
import { workerProcesses } from '../support/worker-process.ts';

// One worker with 6 delivery slots, 2 per webhook: a fast webhook may burst to all 6, and while it does the
// other webhooks have a reserve of 2 more.
const CONCURRENCY = 6;
const PER_WEBHOOK = 2;
const TIMEOUT_MS = 3_000;
const FAST_ANSWERS = 14;

const t = await startProcessingApp({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' }, { worker: false });
workerProcesses({
  databaseUrl: t.databaseUrl,
  dataDir: t.dataDir,
  env: {
    INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true',
    INTAKE_DELIVERY_SCHEDULE: '0,0.5',
    INTAKE_DELIVERY_TIMEOUT_MS: String(TIMEOUT_MS),
    INTAKE_DELIVERY_CONCURRENCY: String(CONCURRENCY),
    INTAKE_DELIVERY_CONCURRENCY_PER_WEBHOOK: String(PER_WEBHOOK),
  },
}).start();

const hookedForm = hookedForms(t);
const CONTACT = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  message: 'Could you send me a quote for twenty units?',
};

describe('a fast webhook that stops answering', { timeout: 90_000 }, () => {
  it('holds at most every slot, and another webhook is still delivered within a second (the reserve)', async () => {
    // Answers its first requests at once (so it counts as fast, under 100 ms on average even on a loaded
    // machine, and bursts), then never again.
    const turning = await hookedForm((req) => (req.n <= FAST_ANSWERS ? { status: 204 } : { hang: true }));
    const healthy = await hookedForm(() => ({ status: 204 }));

    await Promise.all(Array.from({ length: FAST_ANSWERS + 6 }, () => postForm(t, turning.endpoint, CONTACT)));
    const reqs = await turning.receiver.waitFor(FAST_ANSWERS + 1, 30_000);
    const silentFrom = reqs[FAST_ANSWERS]!.receivedAt;

    const latencies: number[] = [];
    for (let i = 0; i < 3; i++) {
      const postedAt = Date.now();
      await postForm(t, healthy.endpoint, CONTACT);
      const got = await healthy.receiver.waitFor(i + 1, 10_000);
      latencies.push(got[i]!.receivedAt - postedAt);
    }
    console.log(`burst fairness: healthy webhook's deliveries arrived ${latencies.join(', ')} ms after their posts`);
    for (const ms of latencies) expect(ms).toBeLessThan(1_000);
    // Within the first timeout after it went silent, it held more than its share open, never more than every slot.
    const hung = turning.receiver.requests.filter(
      (r) => r.n > FAST_ANSWERS && r.receivedAt < silentFrom + TIMEOUT_MS - 200,
    );
    console.log(`burst fairness: ${hung.length} attempts held open by the webhook that went silent`);
    expect(hung.length).toBeGreaterThan(PER_WEBHOOK);
    expect(hung.length).toBeLessThanOrEqual(CONCURRENCY);
  });
});
