import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { authErrors, ErrorBody, PageQuery, paginated, rateLimitErrors, text, Timestamp } from './common.ts';
import { COSTS } from './costs.ts';

/** Triage: the tags, stage, assignee and notes a team works a submission with. */

const c = initContract();

export const MAX_TAGS = 20;
export const MAX_STAGES = 20;
export const MAX_NOTE_CHARS = 10_000;
/** A submission holds at most this many notes. */
export const MAX_NOTES = 1000;
/** `GET …/tags` answers at most this many tags, the most used first. */
export const MAX_TAG_COUNTS = 1000;

/** Letters, digits, space, `-`, `_`, `:`; at least one that is not a space. */
export const TAG_PATTERN = /^[\p{L}\p{N} _:-]*[\p{L}\p{N}_:-][\p{L}\p{N} _:-]*$/u;

export const Tag = text(
  z.string().max(50).regex(TAG_PATTERN, 'A tag is 1–50 letters, digits, spaces, "-", "_" or ":".'),
).describe('1–50 letters, digits, spaces, `-`, `_` or `:`; stored trimmed and lower-cased.');

export const TagList = z.array(Tag).max(MAX_TAGS);

export const StageKey = z
  .string()
  .regex(/^[a-z0-9_]{1,32}$/, 'A stage key is 1–32 characters of a-z, 0-9 and "_".')
  .describe('1–32 characters of a-z, 0-9 and `_`.');

export const Stage = z
  .object({
    key: StageKey,
    label: text(z.string().trim().min(1).max(64)),
    done: z.boolean().default(false).describe('Work on a submission in this stage is finished.'),
  })
  .strict();
export type Stage = z.infer<typeof Stage>;

export const DEFAULT_STAGES: Stage[] = [
  { key: 'new', label: 'New', done: false },
  { key: 'in_progress', label: 'In progress', done: false },
  { key: 'done', label: 'Done', done: true },
];

/** The triage settings as the API shows them (in `settings`). */
export const TriageSettings = z.object({
  stages: z
    .array(Stage)
    .min(1)
    .max(MAX_STAGES)
    .describe(
      `Up to ${MAX_STAGES} stages, keys unique; new submissions get the first. Default New (\`new\`), In progress (\`in_progress\`), Done (\`done\`, done). ` +
        'Removing a stage that submissions are in needs `reassign_stages` in the same update.',
    ),
});

export const ReassignStages = z
  .record(StageKey, StageKey)
  .describe('Where the submissions of each removed stage go: `{ "<removed key>": "<kept key>" }`.');

export const Member = z
  .object({ id: z.string().describe('Prefix `usr_`.'), email: z.string(), name: z.string() })
  .describe('A member of the team.');

export const Actor = Member.extend({
  token: z.object({ id: z.string(), name: z.string() }).nullable().describe('The API token the change was made with.'),
})
  .nullable()
  .describe(
    "Who made it; null for a change made through a signed link of a notification e-mail or by the form's rules.",
  );

/** The triage fields of a submission, in list items, the detail, export and event bodies. */
export const TriageFields = z.object({
  tags: z.array(z.string()).describe('In the order they were added.'),
  stage: z.string().describe("A key of the form's `settings.stages`."),
  assignee: Member.nullable(),
});

export const TriageChanges = z
  .object({
    stage: z.object({ from: z.string(), to: z.string() }).optional(),
    tags: z.object({ added: z.array(z.string()), removed: z.array(z.string()) }).optional(),
    assignee: z.object({ from: Member.nullable(), to: Member.nullable() }).optional(),
  })
  .describe('What changed: only the fields that did.');

/** The triage part of `PUT …/submissions/{submission}`. */
export const TriageUpdate = z.object({
  tags: TagList.optional().describe('Replaces the tags.'),
  add_tags: TagList.optional().describe('Added after the current tags (ones already there are kept in place).'),
  remove_tags: TagList.optional(),
  stage: StageKey.optional().describe("A key of the form's stages."),
  assignee_id: z.string().max(64).nullable().optional().describe('A member of the team (`usr_…`); null unassigns.'),
});

export const IfMatch = z
  .string()
  .max(1000)
  .optional()
  .describe('The `ETag` of the submission as last read: a change made since answers 412 `precondition_failed`.');

export const Note = z.object({
  id: z.string().describe('Prefix `note_`.'),
  body: z.string(),
  author: Actor,
  created_at: Timestamp,
});

export const CreateNoteBody = z
  .object({
    body: text(z.string().trim().min(1).max(MAX_NOTE_CHARS)).describe(
      `Plain text, 1–${MAX_NOTE_CHARS.toLocaleString('en')} characters.`,
    ),
  })
  .strict();

export const ACTIVITY_FIELDS = ['stage', 'tags', 'assignee', 'folder', 'notes', 'rules'] as const;

const ActivityValue = z
  .union([z.string(), z.array(z.string()), Member, z.null()])
  .describe(
    'stage: its key; tags: the list; assignee: a member or null; folder: `inbox` or `spam`; notes: the note id; ' +
      'rules: the names of the rules that fired (from null).',
  );

export const ActivityEntry = z.object({
  at: Timestamp,
  actor: Actor,
  change: z.object({ field: z.enum(ACTIVITY_FIELDS), from: ActivityValue, to: ActivityValue }),
});

export const StageCount = z.object({
  key: z.string(),
  label: z.string(),
  done: z.boolean(),
  count: z.number().int().describe('Submissions in the inbox (not spam) in this stage.'),
});

export const TagCount = z.object({
  tag: z.string(),
  count: z.number().int().describe('Submissions in the inbox (not spam) with this tag.'),
});

const FormParams = z.object({ form: z.string().describe('Form id (`frm_…`).') });
const SubmissionParams = FormParams.extend({ submission: z.string().describe('Submission id (`subm_…`).') });
const NoteParams = SubmissionParams.extend({ note: z.string().describe('Note id (`note_…`).') });

export const triageContract = c.router({
  listFormStages: {
    method: 'GET',
    path: '/v1/forms/:form/stages',
    summary: "The form's stages, each with how many inbox submissions are in it",
    pathParams: FormParams,
    responses: { 200: z.object({ data: z.array(StageCount) }), ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'submissions:read', cost: COSTS.formScan },
  },
  listFormTags: {
    method: 'GET',
    path: '/v1/forms/:form/tags',
    summary: `The tags in use on the form's inbox submissions, each with its count, the most used first (at most ${MAX_TAG_COUNTS})`,
    pathParams: FormParams,
    responses: { 200: z.object({ data: z.array(TagCount) }), ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'submissions:read', cost: COSTS.formScan },
  },
  listSubmissionNotes: {
    method: 'GET',
    path: '/v1/forms/:form/submissions/:submission/notes',
    summary: "A submission's notes, oldest first. Notes are the team's: never sent to webhooks, the stream or e-mail",
    pathParams: SubmissionParams,
    query: PageQuery,
    responses: { 200: paginated(Note), ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'submissions:read', cost: COSTS.meteredRecords },
  },
  createSubmissionNote: {
    method: 'POST',
    path: '/v1/forms/:form/submissions/:submission/notes',
    summary: `Add a note to a submission (at most ${MAX_NOTES.toLocaleString('en')} per submission)`,
    pathParams: SubmissionParams,
    body: CreateNoteBody,
    responses: { 201: z.object({ data: Note }), 409: ErrorBody, ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'submissions:write', cost: COSTS.meteredRow },
  },
  deleteSubmissionNote: {
    method: 'DELETE',
    path: '/v1/forms/:form/submissions/:submission/notes/:note',
    summary: 'Delete a note: its author, or an admin or owner of the team',
    pathParams: NoteParams,
    body: c.noBody(),
    responses: { 200: z.object({ ok: z.literal(true) }), ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'submissions:write', cost: COSTS.meteredRow },
  },
  listSubmissionActivity: {
    method: 'GET',
    path: '/v1/forms/:form/submissions/:submission/activity',
    summary: "A submission's changes of stage, tags, assignee, folder and notes, newest first",
    pathParams: SubmissionParams,
    query: PageQuery,
    responses: { 200: paginated(ActivityEntry), ...authErrors, ...rateLimitErrors },
    metadata: { ability: 'submissions:read', cost: COSTS.meteredRecords },
  },
});
