import { afterAll, describe, expect, inject, it } from 'vitest';
import { pino } from 'pino';
import { cleanupAll } from '../../bench/lib/cleanup.ts';
import { runSoak, soakProblems } from '../../bench/lib/soak.ts';
import { captureLogs, capturedLogFile } from '../support/processes.ts';
import { privateDatabaseUrl, tempDataDir } from '../support/processing.ts';

// The soak of bench/soak.ts at 5,000 posts (the bench runs 100,000): real `intake serve --no-worker` and
// `intake worker` processes on a database of this file's own (a worker on the run's shared one would take
// other files' jobs), the run's S3 server, a real HTTPS receiver. What it checks and why: bench/lib/soak.ts.
const databaseUrl = await privateDatabaseUrl();
const dataDir = tempDataDir();
afterAll(() => cleanupAll());

describe('load with an audit', () => {
  it(
    '5,000 concurrent posts with a worker SIGKILLed midway: accepted = stored = delivered, each once, no 5xx',
    { timeout: 150_000 },
    async () => {
      const lines: string[] = [];
      const report = await runSoak({
        posts: 5_000,
        concurrency: 50,
        postsPerClient: 10,
        // The killed worker's claims are lapsed through pg-boss's own supervision pass rather than waited
        // out (3 to 5 minutes): the same recovery, in this test's time.
        claims: 'lapse',
        drainTimeoutMs: 90_000,
        databaseUrl,
        storageUrl: inject('storageUrl'),
        bucket: 'intake-test',
        dataDir,
        // More processing slots than the default 4, so the worker keeps closer to the posts on this 2-core machine.
        env: { LOG_LEVEL: 'warn', INTAKE_WORKER_CONCURRENCY: '8' },
        onProcess: (name, proc, env) => captureLogs(proc, name.replace(/\s+/g, '-'), { env }),
        appLog: pino({ level: 'debug' }, pino.destination({ dest: capturedLogFile('soak-app'), sync: true })),
        log: (msg) => lines.push(msg),
      });
      const a = report.audit;
      console.log(
        `soak: ${report.posts} posts at ${report.load.postsPerSecond}/s (p50 ${report.load.latencyMs.p50} ms, p99 ${report.load.latencyMs.p99} ms), ` +
          `accepted ${a.accepted}, stored ${a.stored}, delivered ${a.delivered}, duplicates ${a.duplicates}, redeliveries ${a.redeliveries} ` +
          `(${report.restart.heldAtKill.deliveries} attempts held by the killed worker), 5xx ${report.load.fiveXx}, errors ${report.load.errors}, ` +
          `drained ${report.drainSeconds} s after the load, wall ${report.wallSeconds} s`,
      );

      expect(soakProblems(report), lines.join('\n')).toEqual([]);
      expect(report.load.fiveXx).toBe(0);
      expect(report.load.statuses).toEqual({ 201: 5_000 });
      expect(report.restart.exit).toBe('SIGKILL');
      expect(report.drained).toBe(true);
      expect({ accepted: a.accepted, stored: a.stored, delivered: a.delivered }).toEqual({
        accepted: 5_000,
        stored: 5_000,
        delivered: 5_000,
      });
      expect(a.lost).toEqual({ notStored: 0, notAccepted: 0, notDelivered: 0, notSucceeded: 0 });
      expect(a.statuses).toEqual({ processed: 5_000 });
      expect(a.deliveryStatuses).toEqual({ succeeded: 5_000 });
      expect(a.duplicates).toBe(0);
      expect(a.strayReceipts).toBe(0);
      expect(a.badSignatures).toBe(0);
      // A resend is the same delivery (webhook-id) again, and only of an attempt the killed worker held.
      expect(a.unexplainedRedeliveries).toEqual([]);
      expect(a.redeliveries).toBeLessThanOrEqual(report.restart.heldAtKill.deliveries);
    },
  );
});
