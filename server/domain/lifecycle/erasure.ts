import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import type { ErasureBody } from '../../../contract/erasure.ts';
import type { ErasureJobResult } from '../../../contract/jobs.ts';
import type { AppContext } from '../../context.ts';
import * as jobQueries from '../../infra/db/queries/jobs.ts';
import * as queries from '../../infra/db/queries/erasure.ts';
import { eraseData } from '../../infra/queue/definitions.ts';
import { decryptSecret, encryptSecret } from '../../infra/outbound/signing.ts';
import type { Caller } from '../accounts/caller.ts';
import { inTeamScan } from '../accounts/team-scans.ts';
import { AppError, notFound } from '../shared/errors.ts';
import { mayBeUnseen, newId } from '../shared/ids.ts';
import { deleteRows } from '../submissions/submissions.ts';
import { iso } from '../shared/timestamps.ts';

/**
 * Erasure requests: one person's data out of every form of the team. The value searched for is kept
 * encrypted, and only until the request has run; the receipt records what was erased, when and by whom.
 */

/** Submissions read per query while searching a form. */
const SCAN = 2000;
/** After each search an erasure job rests this many times as long as it took, so a team's erasures use a fifth of a backend at most. */
const SCAN_REST = 4;

/**
 * The value as a Postgres regular expression: the value itself (escaped), not inside a longer word or
 * address — `ada@example.com` is found in "write to ada@example.com!", not in "bada@example.com".
 */
export function erasurePattern(value: string): string {
  const escaped = value.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
  // Characters that continue an address or a word; a dot continues it only when one of them follows.
  // (In a bracket expression a '-' is literal only last.)
  const word = '[:alnum:]_%+';
  return `(^|[^${word}.-])${escaped}($|[^${word}.-]|\\.(?![${word}-]))`;
}

/** How many of the matching submission ids a dry run lists (it counts them all). */
export const DRY_RUN_IDS = 1000;

function assertMayErase(caller: Caller): void {
  if (caller.role !== 'owner' && caller.role !== 'admin')
    throw new AppError('forbidden', 'Only owners and admins can erase data.');
}

/**
 * A dry run: what a real run would erase, found by the same search in one read-only statement, answered at
 * once. Nothing is written and the value searched for is not kept.
 */
export async function previewErasure(
  ctx: AppContext,
  caller: Caller,
  body: z.infer<typeof ErasureBody>,
): Promise<{ dry_run: true } & queries.ErasurePreview> {
  assertMayErase(caller);
  const pattern = erasurePattern((body.email ?? body.value)!);
  const preview = await inTeamScan(ctx, caller.teamId, () =>
    queries.previewErasure(ctx.db, caller.teamId, pattern, DRY_RUN_IDS),
  );
  return { dry_run: true, ...preview };
}

/** A real run: the request's receipt and its job, queued together; the job erases (see runErasure). */
export async function createErasure(
  ctx: AppContext,
  caller: Caller,
  body: z.infer<typeof ErasureBody>,
): Promise<{ job_id: string; erasure_id: string }> {
  assertMayErase(caller);
  const kind = body.email !== undefined ? 'email' : 'value';
  const value = (body.email ?? body.value)!;
  return ctx.db.transaction(async (tx) => {
    const erasureId = newId('era');
    const job = await jobQueries.insertJob(tx, {
      id: newId('job'),
      teamId: caller.teamId,
      type: 'erasure',
      params: { erasure_id: erasureId },
      total: 0,
      createdBy: caller.tokenId,
    });
    await queries.insertErasure(tx, {
      id: erasureId,
      teamId: caller.teamId,
      jobId: job.id,
      kind,
      valueEncrypted: encryptSecret(ctx.keys.erasureValues, value),
      dryRun: body.dry_run,
      tokenId: caller.tokenId,
      userId: caller.userId,
    });
    // In the team's next turn: one team's hundred requests do not hold back another team's one.
    await ctx.queue.sendInTurn(eraseData, { erasureId, teamId: caller.teamId }, { tx, group: caller.teamId });
    return { job_id: job.id, erasure_id: erasureId };
  });
}

/**
 * The erasure job: form by form, batch by batch, each batch erased and counted in one transaction, so a
 * worker killed half-way resumes where it stopped (erased rows are gone; counts are never doubled). `teamId`:
 * the request's team, from the job (a job queued without it finds its request by id alone). A request not found
 * within a minute of its making is retried (shared/ids.ts, mayBeUnseen).
 */
export async function runErasure(ctx: AppContext, erasureId: string, teamId?: string): Promise<void> {
  const request = await queries.findErasure(ctx.db, erasureId, teamId);
  if (!request && mayBeUnseen(erasureId)) throw new Error('the erasure is not visible yet; the job is retried');
  if (!request || request.finished_at || !request.value_encrypted) return;
  const team = request.team_id;
  await queries.startErasure(ctx.db, team, erasureId);
  await jobQueries.startJob(ctx.db, request.job_id, team);
  const pattern = erasurePattern(decryptSecret(ctx.keys.erasureValues, request.value_encrypted));
  // A queued dry run (requests stored as such; new dry runs go through previewErasure) counts in memory and
  // writes the receipt once. A real run counts each batch in the transaction that erases it.
  const wouldErase: queries.ErasedCounts = { submissions: 0, files: 0, deliveriesRedacted: 0, forms: {} };
  for (const formId of await queries.teamFormIds(ctx.db, team)) {
    let after: { at: string; id: string } | null = null;
    for (;;) {
      const searched = performance.now();
      const scanned = await queries.matchingSubmissions(ctx.db, team, formId, pattern, after, SCAN);
      await sleep(SCAN_REST * (performance.now() - searched));
      if (scanned.ids.length && request.dry_run) {
        const would = await queries.countFiles(ctx.db, team, scanned.ids);
        wouldErase.submissions += scanned.ids.length;
        wouldErase.files += would.files;
        wouldErase.deliveriesRedacted += would.deliveries;
        wouldErase.forms[formId] = (wouldErase.forms[formId] ?? 0) + scanned.ids.length;
      } else if (scanned.ids.length) {
        await ctx.db.transaction(async (tx) => {
          const ids = await queries.lockExisting(tx, team, scanned.ids);
          const gone = await deleteRows(ctx, tx, team, ids);
          await queries.addErased(tx, team, erasureId, formId, { submissions: ids.length, ...gone });
          await jobQueries.addProgress(tx, request.job_id, ids.length, [], team);
        });
      }
      if (!scanned.last) break;
      after = scanned.last;
    }
  }
  await ctx.db.transaction(async (tx) => {
    if (request.dry_run) await queries.setErased(tx, team, erasureId, wouldErase);
    await queries.finishErasure(tx, team, erasureId, 'succeeded');
    await jobQueries.finishJob(tx, request.job_id, 'succeeded', team);
  });
}

export function erasureView(e: queries.ErasureRow) {
  return {
    id: e.id,
    job_id: e.job_id,
    kind: e.kind,
    dry_run: e.dry_run,
    status: e.status,
    requested_by: { token_id: e.requested_by_token_id, user_id: e.requested_by_user_id },
    erased: { submissions: e.submissions, files: e.files, deliveries_redacted: e.deliveries_redacted, forms: e.forms },
    created_at: iso(e.created_at),
    finished_at: e.finished_at ? iso(e.finished_at) : null,
  };
}

export async function getErasure(ctx: AppContext, caller: Caller, id: string) {
  const row = await queries.findErasure(ctx.db, id, caller.teamId);
  if (!row) throw notFound('Erasure request');
  return erasureView(row);
}

/** What GET /v1/jobs/{id} shows of the team's erasure job: its receipt's counts. */
export async function erasureJobResult(
  ctx: AppContext,
  teamId: string,
  erasureId: string,
): Promise<z.infer<typeof ErasureJobResult> | null> {
  const row = await queries.findErasure(ctx.db, erasureId, teamId);
  if (!row) return null;
  return {
    erasure_id: row.id,
    dry_run: row.dry_run,
    submissions: row.submissions,
    files: row.files,
    deliveries_redacted: row.deliveries_redacted,
    forms: row.forms,
  };
}
