import { TEAM_CAPS } from '../../../contract/costs.ts';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { AppError } from '../shared/errors.ts';
import { Lanes } from '../shared/lanes.ts';

/** The least time between the starts of two of a team's scans in one process. */
const SCAN_SPACING_MS = 1000;

const lanesOf = new WeakMap<Config, Lanes>();

/**
 * Runs a scan of all of a team's data (an erasure dry run, pruning a form's fields, deleting a form for
 * good): a team's scans take turns, one at a time per process and at most one a second, and one asked for
 * meanwhile is refused at once rather than queued (contract/costs.ts, cap `scans`).
 */
export function inTeamScan<T>(ctx: AppContext, teamId: string, work: () => Promise<T>): Promise<T> {
  let lanes = lanesOf.get(ctx.config);
  if (!lanes) lanesOf.set(ctx.config, (lanes = new Lanes({ running: 1, waiting: 0, spacingMs: SCAN_SPACING_MS })));
  return lanes.run(teamId, work, {
    refusal: () => new AppError('rate_limited', `${TEAM_CAPS.scans}: retry in a moment.`, { retry_after: SCAN_SPACING_MS / 1000 }),
  });
}
