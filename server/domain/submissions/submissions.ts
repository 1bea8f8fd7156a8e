import type { z } from 'zod';
import type { BulkBody, SubmissionListQuery, UpdateSubmissionBody } from '../../../contract/submissions.ts';
import type { AppContext } from '../../context.ts';
import type { Sql, Tx } from '../../infra/db/database.ts';
import { foldCounterDay, recordFieldNames, spreadCounterDays, type CounterDay } from '../../infra/db/queries/forms.ts';
import * as queries from '../../infra/db/queries/submissions.ts';
import { redactForSubmissions } from '../../infra/db/queries/deliveries.ts';
import type { Caller } from '../accounts/caller.ts';
import { AppError, notFound, validationFailed } from '../shared/errors.ts';
import { TEXT_MESSAGE } from '../../../contract/common.ts';
import { printable, unstorableText } from '../shared/field-types.ts';
import { processSubmission } from '../../infra/queue/definitions.ts';
import { isId, newId } from '../shared/ids.ts';
import { removeObjectsLater } from '../lifecycle/object-removal.ts';
import { pageEnvelope } from '../shared/pagination.ts';
import { Lanes } from '../../infra/lanes.ts';
import { chargeSearchBudget, withinSearchTime } from '../accounts/rate-windows.ts';
import { requireForm, requireFormSettings } from '../forms/live-form.ts';
import { SIGNED_URL_SECONDS } from './file-links.ts';
import { searchText } from './search.ts';
import { submissionDetail, submissionEtag, submissionView } from './view.ts';
import {
  commitTriage,
  planTriage,
  resolveAssignee,
  touchesTriage,
  triageSelection,
  type TriageInput,
  type TriagePlan,
} from './triage.ts';
import { assertStage } from './triage-rules.ts';
import type { Stage } from '../../../contract/triage.ts';
import type { Member } from '../../infra/db/queries/submissions.ts';
import { findUsers } from '../../infra/db/queries/accounts.ts';
import { reclaimKeys } from './unique-keys.ts';

export const BULK_LIMIT = 500;

/** Keyset cursors carry the timestamp as text with microseconds: a JS Date would drop them and repeat rows. */
function encodeCursor(ts: string, id: string): string {
  return Buffer.from(JSON.stringify([ts, id])).toString('base64url');
}

function decodeCursor(cursor: string): [string, string] {
  try {
    const [ts, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof ts === 'string' && typeof id === 'string' && !Number.isNaN(Date.parse(ts))) return [ts, id];
  } catch {
    // fall through
  }
  throw validationFailed([{ in: 'query', path: 'cursor', message: 'Invalid cursor.' }]);
}

/**
 * A search's or a triage filter's matches are counted up to this many: a common word or tag would otherwise
 * count half the form (a tag's exact count is `GET …/tags`, a stage's `GET …/stages`).
 */
const COUNT_CAP = 1000;

/**
 * A team's searches run one at a time in each process, the rest waiting their turn: the team's budget
 * (INTAKE_SEARCH_TEAM_RATE_LIMIT) bounds how many, its search time (INTAKE_SEARCH_TEAM_TIME_MS) how long in
 * all, and this how many at once, so one team's searchers cannot take the database from the others' lists.
 */
const searchTurns = new Lanes({ running: 1 });

export async function listSubmissions(
  ctx: AppContext,
  caller: Caller,
  formId: string,
  q: z.infer<typeof SubmissionListQuery>,
) {
  const { page: pageNumber, per_page: perPage, cursor, tag, stage, assignee, ...filters } = q;
  // A stage filter reads the form's stages (and so checks the form); otherwise the form is only checked.
  if (stage === undefined) await requireForm(ctx, caller, formId);
  const triage = await triageSelection(ctx, caller, formId, { tag, stage, assignee });
  const filter = { ...filters, q: searchText(filters.q) };
  const page = {
    limit: perPage + 1,
    offset: cursor ? 0 : (pageNumber - 1) * perPage,
    after: cursor ? decodeCursor(cursor) : undefined,
  };
  const selection = { teamId: caller.teamId, formId, ...filter, ...triage };
  if (filter.q) await chargeSearchBudget(ctx, caller);
  const capped = Boolean(filter.q) || Object.keys(triage).length > 0;
  const search = () => queries.searchPage(ctx.db, selection, page, COUNT_CAP);
  const list = () =>
    Promise.all([
      queries.listPage(ctx.db, selection, page),
      queries.countMatching(ctx.db, selection, capped ? COUNT_CAP : null),
    ]);
  const { rows, counted } = filter.q
    ? await searchTurns.run(caller.teamId, () => withinSearchTime(ctx, caller.teamId, search))
    : await list().then(([r, n]) => ({ rows: r, counted: n }));
  // Past the cap, `total` is the cap and `total_capped` says so.
  const totalCapped = capped && counted > COUNT_CAP;
  const total = totalCapped ? COUNT_CAP : counted;
  const more = rows.length > perPage;
  const pageRows = rows.slice(0, perPage);
  const last = pageRows[pageRows.length - 1];
  const envelope = pageEnvelope(pageRows.map(submissionView), {
    page: pageNumber,
    perPage,
    total,
    baseUrl: ctx.config.baseUrl,
    path: `/v1/forms/${formId}/submissions`,
    query: { ...filter, tag, stage, assignee },
  });
  const nextCursor = more && last ? encodeCursor(last.cursor_ts, last.id) : null;
  if (!cursor) return { ...envelope, meta: { ...envelope.meta, total_capped: totalCapped, next_cursor: nextCursor } };
  // Asked for by cursor: the page has no number, links go on by cursor (keyset pages only go forward).
  const next = nextCursor ? new URL(envelope.links.first) : null;
  next?.searchParams.delete('page');
  next?.searchParams.set('cursor', nextCursor!);
  return {
    ...envelope,
    links: { ...envelope.links, prev: null, next: next ? next.toString() : null },
    meta: { ...envelope.meta, current_page: null, total_capped: totalCapped, next_cursor: nextCursor },
  };
}

async function loadSubmission(
  sql: Sql,
  caller: Caller,
  formId: string,
  id: string,
  lock = false,
): Promise<queries.SubmissionRow> {
  const row = await queries.findSubmission(sql, caller.teamId, formId, id, lock);
  if (!row) throw notFound('Submission');
  return row;
}

export async function getSubmission(ctx: AppContext, caller: Caller, formId: string, id: string) {
  await requireForm(ctx, caller, formId);
  return submissionDetail(ctx, await loadSubmission(ctx.db, caller, formId, id));
}

async function audit(tx: Tx, caller: Caller, submissionId: string, action: string, changes: Record<string, unknown>) {
  await queries.insertEvent(tx, {
    id: newId('evt'),
    teamId: caller.teamId,
    submissionId,
    actorUserId: caller.userId,
    actorTokenId: caller.tokenId,
    action,
    changes,
  });
}

/** 412 unless `ifMatch` (an `If-Match` header: `*` or a list of ETags) names the submission's version. */
function assertVersion(current: queries.SubmissionRow, ifMatch: string | undefined): void {
  if (ifMatch === undefined) return;
  const tags = ifMatch.split(',').map((t) => t.trim());
  if (tags.includes('*') || tags.includes(submissionEtag(current))) return;
  throw new AppError('precondition_failed', 'The submission changed since that ETag: read it again, then retry.', {
    etag: submissionEtag(current),
  });
}

/**
 * PUT: `payload` merged shallowly (null removes a key), `status` per the spec's transitions, triage (tags,
 * stage, assignee); audited. With `If-Match`, only the version it names is changed (412 otherwise).
 */
export async function updateSubmission(
  ctx: AppContext,
  caller: Caller,
  formId: string,
  id: string,
  input: z.infer<typeof UpdateSubmissionBody>,
  ifMatch?: string,
) {
  const { tags, add_tags, remove_tags, stage, assignee_id, ...rest } = input;
  const triage = { tags, add_tags, remove_tags, stage, assignee_id };
  const settings = await requireFormSettings(ctx, caller, formId);
  const updated = await ctx.db.transaction(async (tx) => {
    const current = await loadSubmission(tx, caller, formId, id, true);
    assertVersion(current, ifMatch);
    const assignee =
      assignee_id === undefined ? undefined : await resolveAssignee(tx, caller, assignee_id, 'body', 'assignee_id');
    const plan = touchesTriage(triage) ? planTriage(current, triage, settings.stages, assignee) : null;
    const changed = await applyEdit(ctx, tx, caller, formId, current, rest);
    if (plan) await commitTriage(ctx, tx, caller, formId, [plan]);
    return changed || plan ? loadSubmission(tx, caller, formId, id) : current;
  });
  return submissionDetail(ctx, updated);
}

/** The payload and status part of a PUT; false when it changes nothing. */
async function applyEdit(
  ctx: AppContext,
  tx: Tx,
  caller: Caller,
  formId: string,
  current: queries.SubmissionRow,
  input: Pick<z.infer<typeof UpdateSubmissionBody>, 'payload' | 'status'>,
): Promise<boolean> {
  const id = current.id;
  const changes: Record<string, unknown> = {};
  const payload = { ...current.payload };
  if (input.payload) {
    const bad = unstorableText(input.payload);
    if (bad) throw validationFailed([{ in: 'body', path: `payload.${printable(bad)}`, message: TEXT_MESSAGE }]);
    const diff: Record<string, { from: unknown; to: unknown }> = {};
    for (const [key, value] of Object.entries(input.payload)) {
      if (key.length > 64)
        throw validationFailed([
          { in: 'body', path: `payload.${key.slice(0, 64)}…`, message: 'Field names are limited to 64 characters.' },
        ]);
      const from = payload[key] ?? null;
      if (value === null) delete payload[key];
      else payload[key] = value;
      if (JSON.stringify(from) !== JSON.stringify(value)) diff[key] = { from, to: value };
    }
    if (Object.keys(diff).length) changes.payload = diff;
  }
  let spamReason = current.spam_reason;
  if (input.status && input.status !== current.status) {
    changes.status = { from: current.status, to: input.status };
    spamReason = input.status === 'spam' ? 'manual' : null;
  }
  const status = input.status ?? current.status;
  if (!Object.keys(changes).length) return false;
  await queries.updateSubmission(tx, caller.teamId, id, { payload, status, spamReason });
  if (status === 'received' && current.status !== 'received')
    await reprocess(ctx, tx, caller.teamId, id, current.status === 'spam');
  if (changes.payload || (current.status === 'spam' && status !== 'spam'))
    await reclaimKeys(ctx, tx, caller.teamId, [id]);
  if (changes.payload) await recordFieldNames(tx, current.team_id, formId, Object.keys(payload));
  await audit(tx, caller, id, 'update', changes);
  return true;
}

/**
 * A submission put back to `received` (a person said it is not spam, or a failed one is retried) goes
 * through processing again — categories, notification e-mail and webhook deliveries — in the transaction
 * that moved it. `trusted`: a person cleared it, so moderation may not send it back to spam.
 */
async function reprocess(ctx: AppContext, tx: Tx, teamId: string, submissionId: string, trusted: boolean) {
  await ctx.queue.send(processSubmission, { submissionId, trusted, teamId }, { tx });
}

/**
 * Hard delete of rows (files and audit events cascade); the storage objects go through a job enqueued
 * in the same transaction, so they are removed even if this process dies right after. Used by deletes,
 * bulk deletes, retention and erasure. Returns how many files and delivery bodies went with them.
 */
export async function deleteRows(
  ctx: AppContext,
  tx: Tx,
  teamId: string,
  ids: string[],
): Promise<{ files: number; deliveriesRedacted: number }> {
  if (!ids.length) return { files: 0, deliveriesRedacted: 0 };
  const keys = await queries.deleteSubmissions(tx, teamId, ids);
  await removeObjectsLater(ctx, tx, keys);
  // Their deliveries stay in the log without the bodies, which carry the data; queued retries stop.
  return { files: keys.length, deliveriesRedacted: await redactForSubmissions(tx, ids, teamId) };
}

export type EmailAction = 'spam' | 'not_spam' | 'delete';

/**
 * A change made through a signed link of a notification e-mail: there is no caller (the link is the
 * credential), so the audit event has no actor and names the link. Marking not spam sends the submission
 * through processing again, trusted, as the API does. Returns false when there was nothing to change.
 */
export async function actFromEmail(
  ctx: AppContext,
  tx: Tx,
  s: { id: string; teamId: string; status: string },
  action: EmailAction,
): Promise<boolean> {
  if (action === 'delete') {
    await deleteRows(ctx, tx, s.teamId, [s.id]);
    return true;
  }
  const to = action === 'spam' ? 'spam' : 'received';
  if ((s.status === 'spam') === (to === 'spam')) return false;
  await queries.setStatus(tx, s.teamId, [s.id], to, action === 'spam' ? 'manual' : null);
  if (to === 'received') {
    await reprocess(ctx, tx, s.teamId, s.id, true);
    await reclaimKeys(ctx, tx, s.teamId, [s.id]);
  }
  await queries.insertEvent(tx, {
    id: newId('evt'),
    teamId: s.teamId,
    submissionId: s.id,
    actorUserId: null,
    actorTokenId: null,
    action: `email:${action}`,
    changes: { status: { from: s.status, to } },
  });
  return true;
}

export async function deleteSubmission(ctx: AppContext, caller: Caller, formId: string, id: string): Promise<void> {
  await requireForm(ctx, caller, formId);
  await ctx.db.transaction(async (tx) => {
    await loadSubmission(tx, caller, formId, id, true);
    await deleteRows(ctx, tx, caller.teamId, [id]);
  });
}

/**
 * One transaction per call. The spec: `skipped` lists the ids the caller may not act on, so any id that is
 * not a submission of this form — of another form or team, deleted, unknown, or not even shaped like an
 * id (too long, wrong prefix) — is skipped, never a 400 for the whole batch. Only the list itself is
 * refused: the form (404), then the count (413); ids that cannot be one never reach the query.
 */
export async function bulkSubmissions(
  ctx: AppContext,
  caller: Caller,
  formId: string,
  input: z.infer<typeof BulkBody>,
) {
  const settings = await requireFormSettings(ctx, caller, formId);
  if (input.ids.length > BULK_LIMIT) {
    throw new AppError('payload_too_large', `At most ${BULK_LIMIT} ids per call; split the list.`, {
      limit: BULK_LIMIT,
    });
  }
  const triage = bulkTriageInput(input, settings.stages);
  const ids = [...new Set(input.ids)];
  const candidates = ids.filter((id) => isId('subm', id));
  return ctx.db.transaction(async (tx) => {
    const assignee =
      triage?.assignee_id === undefined
        ? undefined
        : await resolveAssignee(tx, caller, triage.assignee_id, 'body', 'assignee_id');
    const rows = candidates.length ? await queries.lockSubmissions(tx, caller.teamId, formId, candidates) : [];
    const valid = new Set(rows.map((r) => r.id));
    const skipped = ids.filter((id) => !valid.has(id));
    if (triage) {
      const members = await assigneesOf(tx, rows);
      const plans = rows
        .map((r) =>
          planTriage({ ...r, assignee: members.get(r.assignee_id ?? '') ?? null }, triage, settings.stages, assignee),
        )
        .filter((p): p is TriagePlan => p !== null);
      await commitTriage(ctx, tx, caller, formId, plans);
    } else if (input.action === 'delete') {
      await deleteRows(ctx, tx, caller.teamId, [...valid]);
    } else {
      const [to, reason] = input.action === 'mark_spam' ? (['spam', 'manual'] as const) : (['received', null] as const);
      const moving = rows
        .filter((r) => (input.action === 'mark_spam' ? r.status !== 'spam' : r.status === 'spam'))
        .map((r) => r.id);
      await queries.setStatus(tx, caller.teamId, moving, to, reason);
      if (to === 'received') {
        for (const movedId of moving) await reprocess(ctx, tx, caller.teamId, movedId, true);
        await reclaimKeys(ctx, tx, caller.teamId, moving);
      }
      for (const r of rows.filter((row) => moving.includes(row.id))) {
        await audit(tx, caller, r.id, input.action, { status: { from: r.status, to } });
      }
    }
    return { ok: true, affected: valid.size, skipped };
  });
}

/** A bulk triage action as the triage input it applies to each submission; null for the other actions. 400 without its argument. */
function bulkTriageInput(input: z.infer<typeof BulkBody>, stages: readonly Stage[]): TriageInput | null {
  const missing = (path: string) =>
    validationFailed([{ in: 'body', path, message: `\`${input.action}\` needs \`${path}\`.` }]);
  switch (input.action) {
    case 'add_tags':
    case 'remove_tags':
      if (!input.tags) throw missing('tags');
      return { [input.action]: input.tags };
    case 'set_stage':
      if (input.stage === undefined) throw missing('stage');
      assertStage(stages, input.stage, 'body', 'stage');
      return { stage: input.stage };
    case 'assign':
      if (input.assignee_id === undefined) throw missing('assignee_id');
      return { assignee_id: input.assignee_id };
    default:
      return null;
  }
}

/** The current assignees of locked rows, by id. */
async function assigneesOf(sql: Sql, rows: queries.LockedSubmission[]): Promise<Map<string, Member>> {
  const ids = [...new Set(rows.map((r) => r.assignee_id).filter((id): id is string => id !== null))];
  return new Map((await findUsers(sql, ids)).map((u) => [u.id, u]));
}

/** The 302 target of a file download: a new 60-second signed storage URL on every request. */
export async function fileDownloadUrl(
  ctx: AppContext,
  caller: Caller,
  formId: string,
  submissionId: string,
  fileId: string,
): Promise<string> {
  await requireForm(ctx, caller, formId);
  const file = await queries.findFile(ctx.db, { fileId, submissionId, formId, teamId: caller.teamId });
  if (!file) throw notFound('File');
  return ctx.storage.presignedGet(file.storage_key, SIGNED_URL_SECONDS, file.filename || fileId);
}

/**
 * Folds every finished day's folder counters into one row per form, folder and day (a daily job), so a
 * folder's count and a deep page's day walk sum one row per day of history plus today's shards.
 */
export async function compactFolderCounts(ctx: AppContext, opts: { batch?: number } = {}): Promise<{ days: number }> {
  const batch = opts.batch ?? 500;
  let days = 0;
  let after: CounterDay | null = null;
  for (;;) {
    const spread = await spreadCounterDays(ctx.db, after, batch);
    for (const d of spread) await ctx.db.transaction((tx) => foldCounterDay(tx, d));
    days += spread.length;
    if (spread.length < batch) return { days };
    after = spread[spread.length - 1]!;
  }
}
