import type { triageContract } from '../../contract/triage.ts';
import * as notes from '../domain/submissions/notes.ts';
import { stagesWithCounts, tagsWithCounts } from '../domain/submissions/triage.ts';
import type { OperationsOf } from './types.ts';

export const triageOperations = {
  listFormStages: async (ctx, caller, { params }) => ({
    status: 200,
    body: await stagesWithCounts(ctx, caller, params.form),
  }),
  listFormTags: async (ctx, caller, { params }) => ({
    status: 200,
    body: await tagsWithCounts(ctx, caller, params.form),
  }),
  listSubmissionNotes: async (ctx, caller, { params, query }) => ({
    status: 200,
    body: await notes.listNotes(ctx, caller, params.form, params.submission, query),
  }),
  createSubmissionNote: async (ctx, caller, { params, body }) => ({
    status: 201,
    body: { data: await notes.createNote(ctx, caller, params.form, params.submission, body) },
  }),
  deleteSubmissionNote: async (ctx, caller, { params }) => {
    await notes.deleteNote(ctx, caller, params.form, params.submission, params.note);
    return { status: 200, body: { ok: true as const } };
  },
  listSubmissionActivity: async (ctx, caller, { params, query }) => ({
    status: 200,
    body: await notes.listActivity(ctx, caller, params.form, params.submission, query),
  }),
} satisfies OperationsOf<typeof triageContract>;
