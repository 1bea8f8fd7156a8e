import { TEAM_CAPS } from '../../../contract/costs.ts';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { AppError } from '../shared/errors.ts';
import { Lanes } from '../../infra/lanes.ts';

/** A team's scans in one process: one at a time, each spaced by five times the last one's run, so at most a fifth of a backend. */
const SCANS = { running: 1, spacingMs: (ranMs: number) => Math.max(1000, 5 * ranMs), waiting: 4, waitMs: 10_000 };

const lanesOf = new WeakMap<Config, Lanes>();

/** Runs a scan of a team's data (an erasure dry run, a field prune, a form's erasure) in the team's turn, or 429. */
export function inTeamScan<T>(ctx: AppContext, teamId: string, work: () => Promise<T>): Promise<T> {
  let lanes = lanesOf.get(ctx.config);
  if (!lanes) lanesOf.set(ctx.config, (lanes = new Lanes(SCANS)));
  return lanes.run(teamId, work, {
    refusal: () => new AppError('rate_limited', `${TEAM_CAPS.scans}: retry in a moment.`, { retry_after: 1 }),
    waitMs: SCANS.waitMs,
  });
}
