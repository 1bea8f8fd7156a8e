import type { AppContext } from '../../context.ts';
import type { Config } from '../../config.ts';
import { AppError } from '../shared/errors.ts';
import { Lanes } from '../shared/lanes.ts';

/** One set of lanes per process configuration (a test may run several apps in one process). */
const lanesOf = new WeakMap<Config, Lanes>();

/**
 * Runs one operation of a team in the team's lane of this process: at most INTAKE_TEAM_CONCURRENCY of a
 * team's operations run at once here, INTAKE_TEAM_QUEUE more wait their turn for at most
 * INTAKE_TEAM_QUEUE_WAIT_MS, and the rest answer 429 `rate_limited`. One team's burst (fifty MCP sessions
 * opened at once, a wall of searches) is then served a few at a time while every other team's requests
 * pass beside it. A waiter whose client goes away (`signal`) leaves the line. Work that already runs in
 * the team's lane (an MCP resource read through its tool) keeps its place instead of queueing again.
 * Long-lived streams (exports, event streams) hold a place only until their first bytes are ready.
 */
export function inTeamLane<T>(ctx: AppContext, teamId: string, work: () => Promise<T>, signal?: AbortSignal | undefined): Promise<T> {
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
