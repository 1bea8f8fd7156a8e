import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import * as leases from '../../infra/db/queries/leases.ts';
import { exportsOpen } from '../../infra/metrics/open-streams.ts';
import type { Caller } from '../accounts/caller.ts';
import { AppError } from '../shared/errors.ts';

/**
 * How many exports a team runs at once, over every process (INTAKE_EXPORTS_PER_TEAM): each running export
 * holds a lease row, renewed while it runs and dropped when it ends or its client goes. A process that
 * dies stops renewing, and its leases expire within LEASE_SECONDS.
 */

const LEASE_SECONDS = 30;
const RENEW_MS = (LEASE_SECONDS / 3) * 1000;
/** What a refused caller is told to wait: about when a running export of the team could have ended. */
const RETRY_AFTER_SECONDS = 10;

export type HeldExportLease = { release(): void };

/** Takes one of the team's export leases, or answers 429 `rate_limited` when the team holds them all. */
export async function takeExportLease(ctx: AppContext, caller: Caller, formId: string): Promise<HeldExportLease> {
  const limit = ctx.config.exportsPerTeam;
  const lease: leases.Lease = {
    id: randomUUID(),
    teamId: caller.teamId,
    tokenId: caller.tokenId,
    formId,
    seconds: LEASE_SECONDS,
  };
  const refused = await ctx.db.transaction((tx) => leases.takeLease(tx, 'export', lease, { team: limit }));
  if (refused) {
    throw new AppError(
      'rate_limited',
      `Your team already runs ${limit} export${limit === 1 ? '' : 's'} at once: wait for one to finish.`,
      {
        retry_after: RETRY_AFTER_SECONDS,
      },
    );
  }
  const renewal = setInterval(() => {
    leases
      .renewLease(ctx.db, 'export', lease)
      .catch((err: unknown) => ctx.log.warn({ err }, 'could not renew an export lease'));
  }, RENEW_MS);
  renewal.unref();
  exportsOpen.inc();
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      exportsOpen.dec();
      clearInterval(renewal);
      leases
        .dropLease(ctx.db, 'export', lease)
        .catch((err: unknown) => ctx.log.warn({ err }, 'could not drop an export lease; it expires by itself'));
    },
  };
}
