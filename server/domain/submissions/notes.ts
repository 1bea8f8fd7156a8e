import type { z } from 'zod';
import type { PageQuery } from '../../../contract/common.ts';
import { ACTIVITY_FIELDS, MAX_NOTES, type ActivityEntry, type CreateNoteBody } from '../../../contract/triage.ts';
import type { AppContext } from '../../context.ts';
import type { Sql } from '../../infra/db/database.ts';
import * as notes from '../../infra/db/queries/submission-notes.ts';
import * as queries from '../../infra/db/queries/submissions.ts';
import type { Caller } from '../accounts/caller.ts';
import { requireForm } from '../forms/live-form.ts';
import { AppError, notFound } from '../shared/errors.ts';
import { isId, newId } from '../shared/ids.ts';
import { pageEnvelope } from '../shared/pagination.ts';
import { iso } from '../shared/timestamps.ts';

/** A submission's notes (the team's own words on it, never sent anywhere) and its activity. */

type Page = z.infer<typeof PageQuery>;

async function requireSubmission(sql: Sql, caller: Caller, formId: string, id: string, lock = false) {
  const row = await queries.findSubmission(sql, caller.teamId, formId, id, lock);
  if (!row) throw notFound('Submission');
  return row;
}

function noteView(n: notes.NoteRow) {
  return { id: n.id, body: n.body, author: n.author, created_at: iso(n.created_at) };
}

export async function listNotes(ctx: AppContext, caller: Caller, formId: string, id: string, q: Page) {
  await requireForm(ctx, caller, formId);
  const submission = await requireSubmission(ctx.db, caller, formId, id);
  const rows = await notes.listNotes(ctx.db, caller.teamId, id, {
    limit: q.per_page,
    offset: (q.page - 1) * q.per_page,
  });
  return pageEnvelope(rows.map(noteView), {
    page: q.page,
    perPage: q.per_page,
    total: submission.notes_count,
    baseUrl: ctx.config.baseUrl,
    path: `/v1/forms/${formId}/submissions/${id}/notes`,
  });
}

/** Adds a note (its activity, a new version of the submission); 409 past MAX_NOTES. */
export async function createNote(
  ctx: AppContext,
  caller: Caller,
  formId: string,
  id: string,
  input: z.infer<typeof CreateNoteBody>,
) {
  await requireForm(ctx, caller, formId);
  const note = await ctx.db.transaction(async (tx) => {
    const submission = await requireSubmission(tx, caller, formId, id, true);
    if (submission.notes_count >= MAX_NOTES)
      throw new AppError('conflict', `A submission holds at most ${MAX_NOTES.toLocaleString('en')} notes.`);
    const row = await notes.insertNote(tx, {
      id: newId('note'),
      teamId: caller.teamId,
      submissionId: id,
      userId: caller.userId,
      tokenId: caller.tokenId,
      body: input.body,
    });
    await queries.countNote(tx, caller.teamId, id, 1);
    await recordNote(tx, caller, id, null, row.id);
    return row;
  });
  return noteView(note);
}

/** Deletes a note: its author may, and an owner or admin of the team; 403 for anyone else. */
export async function deleteNote(ctx: AppContext, caller: Caller, formId: string, id: string, noteId: string) {
  await requireForm(ctx, caller, formId);
  await ctx.db.transaction(async (tx) => {
    await requireSubmission(tx, caller, formId, id, true);
    const note = isId('note', noteId) ? await notes.findNote(tx, caller.teamId, id, noteId) : undefined;
    if (!note) throw notFound('Note');
    if (note.author_user_id !== caller.userId && caller.role !== 'owner' && caller.role !== 'admin')
      throw new AppError('forbidden', "Only a note's author, or an owner or admin of the team, can delete it.");
    await notes.deleteNote(tx, caller.teamId, noteId);
    await queries.countNote(tx, caller.teamId, id, -1);
    await recordNote(tx, caller, id, noteId, null);
  });
}

function recordNote(sql: Sql, caller: Caller, submissionId: string, from: string | null, to: string | null) {
  return queries.insertTriageEvents(sql, { teamId: caller.teamId, userId: caller.userId, tokenId: caller.tokenId }, [
    { id: newId('evt'), submissionId, field: 'notes', from, to },
  ]);
}

type Entry = z.infer<typeof ActivityEntry>;
type Field = Entry['change']['field'];

const folderOf = (status: unknown) => (status === 'spam' ? 'spam' : 'inbox');

/** One activity entry of an event: a triage change as recorded, a status change as the folder it moved between. */
function entryOf(row: notes.ActivityRow): Entry {
  const at = iso(row.at);
  if (row.action !== 'triage') {
    const status = row.changes.status!;
    return { at, actor: row.actor, change: { field: 'folder', from: folderOf(status.from), to: folderOf(status.to) } };
  }
  const [field, change] = Object.entries(row.changes)[0]!;
  if (!(ACTIVITY_FIELDS as readonly string[]).includes(field)) throw new Error(`unknown activity field ${field}`);
  return {
    at,
    actor: row.actor,
    change: { field: field as Field, ...(change as Pick<Entry['change'], 'from' | 'to'>) },
  };
}

export async function listActivity(ctx: AppContext, caller: Caller, formId: string, id: string, q: Page) {
  await requireForm(ctx, caller, formId);
  await requireSubmission(ctx.db, caller, formId, id);
  const page = { limit: q.per_page, offset: (q.page - 1) * q.per_page };
  const [rows, total] = await Promise.all([
    notes.listActivity(ctx.db, caller.teamId, id, page),
    notes.countActivity(ctx.db, caller.teamId, id),
  ]);
  return pageEnvelope(rows.map(entryOf), {
    page: q.page,
    perPage: q.per_page,
    total,
    baseUrl: ctx.config.baseUrl,
    path: `/v1/forms/${formId}/submissions/${id}/activity`,
  });
}
