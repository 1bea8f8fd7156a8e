import { TEAM_CAPS } from '../../../contract/costs.ts';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { AppError } from '../shared/errors.ts';
import { Lanes } from '../shared/lanes.ts';

/** A team's scans in one process: one at a time, started at most once a second, a few more in line for a while. */
const SCANS = { running: 1, spacingMs: 1000, waiting: 4, waitMs: 10_000 };

const lanesOf = new WeakMap<Config, Lanes>();

/**
 * Runs a scan of all of a team's data (an erasure dry run, pruning a form's fields, deleting a form for
 * good): a team's scans take turns, one at a time per process and at most one a second, so a team looping
 * on them holds at most one backend, part of the time; past the line, or after waiting too long, 429
 * (contract/costs.ts, cap `scans`).
 */
export function inTeamScan<T>(ctx: AppContext, teamId: string, work: () => Promise<T>): Promise<T> {
  let lanes = lanesOf.get(ctx.config);
  if (!lanes) lanesOf.set(ctx.config, (lanes = new Lanes(SCANS)));
  return lanes.run(teamId, work, {
    refusal: () => new AppError('rate_limited', `${TEAM_CAPS.scans}: retry in a moment.`, { retry_after: 1 }),
    waitMs: SCANS.waitMs,
  });
}
