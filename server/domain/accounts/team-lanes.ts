import type { AppContext } from '../../context.ts';
import type { Config } from '../../config.ts';
import { AppError } from '../shared/errors.ts';
import { Lanes } from '../../infra/lanes.ts';

/** One set of lanes per process configuration (a test may run several apps in one process). */
const lanesOf = new WeakMap<Config, Lanes>();

/**
 * Runs one operation in its team's lane of this process: a few run at once, some more wait briefly, the rest
 * answer 429. One team's burst is served a few at a time while other teams' requests pass beside it. A waiter
 * whose client goes away (`signal`) leaves the line; streams hold a place only until their first bytes.
 */
export function inTeamLane<T>(
  ctx: AppContext,
  teamId: string,
  work: () => Promise<T>,
  signal?: AbortSignal | undefined,
): Promise<T> {
  const { teamOperations } = ctx.config;
  let lanes = lanesOf.get(ctx.config);
  if (!lanes) lanesOf.set(ctx.config, (lanes = new Lanes(teamOperations)));
  const refusal = (why: 'full' | 'waited') =>
    new AppError(
      'rate_limited',
      why === 'full'
        ? `This team has ${teamOperations.running} requests running and ${teamOperations.waiting} waiting on this server, the most allowed: retry in a moment.`
        : `This request waited ${teamOperations.waitMs / 1000} s behind this team's ${teamOperations.running} running requests on this server: retry in a moment.`,
      { retry_after: 1 },
    );
  return lanes.run(teamId, work, { refusal, waitMs: teamOperations.waitMs, signal });
}
