import type { AppContext } from '../context.ts';
import { runAttempt, type AttemptJob } from '../domain/deliveries.ts';
import { createSender } from '../webhooks/sender.ts';
import { deliverWebhook } from './definitions.ts';

export type DeliveryRunner = { stop(): Promise<void> };

/** After an attempt finishes, fetches are coalesced over this window so one fetch refills several slots. */
const REFILL_MS = 5;

/**
 * The webhook delivery loop of a worker process: keeps up to INTAKE_DELIVERY_CONCURRENCY attempts in flight
 * over keep-alive connections, taking attempt jobs from pg-boss in batches as slots free up. It is woken at
 * once by a new job (LISTEN), by a local timer when a retry it scheduled falls due, and otherwise polls.
 * Each attempt's outcome, its next attempt's job and the settling of its own job commit together.
 */
export function startDeliveryRunner(ctx: AppContext, opts: { version: string }): DeliveryRunner {
  const { config, log } = ctx;
  const sender = createSender({
    timeoutMs: config.deliveryTimeoutMs,
    allowPrivate: config.allowPrivateWebhooks,
    userAgent: `Intake-Webhooks/${opts.version}`,
    connections: config.deliveryConcurrency,
  });
  const limit = config.deliveryConcurrency;
  const running = new Set<Promise<void>>();
  let stopping = false;
  let fetching = false;
  let again = false;
  let backlog = false;
  let refill: NodeJS.Timeout | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let retryAt = Infinity;

  const pump = async (): Promise<void> => {
    if (stopping) return;
    if (fetching) {
      again = true;
      return;
    }
    fetching = true;
    try {
      do {
        again = false;
        const free = limit - running.size;
        if (free <= 0) break;
        const jobs = (await ctx.queue.fetch(deliverWebhook, free)) as unknown as AttemptJob[];
        backlog = jobs.length === free;
        for (const job of jobs) launch(job);
        if (backlog) again = true;
      } while (again && !stopping);
    } catch (err) {
      log.warn({ err }, 'could not fetch webhook deliveries; will retry');
    } finally {
      fetching = false;
    }
  };

  const wakeAt = (at: Date) => {
    const when = at.getTime();
    if (when >= retryAt) return;
    if (retryTimer) clearTimeout(retryTimer);
    retryAt = when;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      retryAt = Infinity;
      void pump();
    }, Math.max(0, when - Date.now()) + 20);
    retryTimer.unref();
  };

  const launch = (job: AttemptJob) => {
    const attempt = runAttempt(ctx, sender, job)
      .then((next) => {
        if (next) wakeAt(next);
      })
      .catch((err: unknown) => log.warn({ err, deliveryId: job.data.deliveryId }, 'delivery attempt failed; its job will be retried'))
      .finally(() => {
        running.delete(attempt);
        if (backlog && !refill && !stopping) {
          refill = setTimeout(() => {
            refill = null;
            void pump();
          }, REFILL_MS);
        }
      });
    running.add(attempt);
  };

  ctx.queue.onWake(deliverWebhook, () => void pump());
  const poll = setInterval(() => void pump(), config.queuePollSeconds * 1000);
  poll.unref();
  void pump();

  return {
    async stop() {
      stopping = true;
      clearInterval(poll);
      if (refill) clearTimeout(refill);
      if (retryTimer) clearTimeout(retryTimer);
      // Attempts in flight finish (each is bounded by the delivery timeout) and record their outcome.
      await Promise.allSettled([...running]);
      await sender.close();
    },
  };
}
