import { TEAM_CAPS } from '../../../contract/costs.ts';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { AppError } from '../shared/errors.ts';
import { Lanes } from '../shared/lanes.ts';

/**
 * A team's scans in one process: one at a time, a few more in line for a while, and each started no sooner
 * than a second, or five times as long as the last one ran, after the last one started: a team looping on
 * scans keeps a database backend busy a fifth of the time at most.
 */
const SCANS = { running: 1, spacingMs: (ranMs: number) => Math.max(1000, 5 * ranMs), waiting: 4, waitMs: 10_000 };

const lanesOf = new WeakMap<Config, Lanes>();

/**
 * Runs a scan of all of a team's data (an erasure dry run, pruning a form's fields, deleting a form for
 * good) in the team's turn (SCANS); past the line, or after waiting too long, 429 (contract/costs.ts, cap
 * `scans`).
 */
export function inTeamScan<T>(ctx: AppContext, teamId: string, work: () => Promise<T>): Promise<T> {
  let lanes = lanesOf.get(ctx.config);
  if (!lanes) lanesOf.set(ctx.config, (lanes = new Lanes(SCANS)));
  return lanes.run(teamId, work, {
    refusal: () => new AppError('rate_limited', `${TEAM_CAPS.scans}: retry in a moment.`, { retry_after: 1 }),
    waitMs: SCANS.waitMs,
  });
}
