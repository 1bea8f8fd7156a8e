import { Counter, Histogram } from 'prom-client';
import { registry } from './registry.ts';

const attempts = new Counter({
  name: 'intake_delivery_attempts_total',
  help:
    'Webhook delivery attempts a worker finished, by outcome (succeeded; failed: will be retried; dead: no attempt left, or the ' +
    'receiver answered 410; stopped: not sent, its webhook or submission is gone) and attempt number (1 = first try).',
  labelNames: ['outcome', 'attempt'] as const,
  registers: [registry],
});

const duration = new Histogram({
  name: 'intake_delivery_duration_seconds',
  help: "Time a sent attempt took, from the request to the receiver's answer (or the error), by outcome.",
  labelNames: ['outcome'] as const,
  buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
  registers: [registry],
});

/** An attempt's outcome as the delivery runner reports it (by shape: metrics import nothing); `skip` and `postpone` are not counted. */
type FinishedAttempt =
  | { kind: 'sent'; job: { data: { attempt: number } }; record: { status: string; durationMs: number | null } }
  | { kind: 'stop'; job: { data: { attempt: number } } }
  | { kind: 'skip' | 'postpone' };

export function countDeliveryAttempt(outcome: FinishedAttempt): void {
  if (outcome.kind === 'sent') {
    attempts.inc({ outcome: outcome.record.status, attempt: String(outcome.job.data.attempt) });
    if (outcome.record.durationMs !== null)
      duration.observe({ outcome: outcome.record.status }, outcome.record.durationMs / 1000);
  } else if (outcome.kind === 'stop') attempts.inc({ outcome: 'stopped', attempt: String(outcome.job.data.attempt) });
}
