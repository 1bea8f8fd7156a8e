import type { Command } from 'commander';
import { createClient } from '../sdk/index.ts';
import { fail, UsageError } from './exit-status.ts';
import { print } from './output.ts';
import { connection, withConnectionOptions } from './profiles.ts';
import { collectList } from './route-options.ts';

/**
 * Triage from the command line: `intake submissions tag|stage|assign subm_… --form frm_…`, verbs on top of
 * updateSubmission (`PUT …/submissions/{submission}`), and how notes and activity read in a table. With `--json`
 * a verb prints exactly the API's `data` (the submission); otherwise its triage fields and its new ETag.
 * Docs: docs/forms-and-submissions.md "Triage", docs/cli.md.
 */

const ROUTE = '[PUT /v1/forms/:form/submissions/:submission]';

type Member = { id: string; email: string; name: string };
type Actor = (Member & { token: { id: string; name: string } | null }) | null;
type TriageOpts = { form: string; ifMatch?: string; json?: boolean; profile?: string };

const person = (m: Member | null) => (m ? (m.name ? `${m.name} <${m.email}>` : m.email) : null);
/** Who made a change: a member, or a signed link of a notification e-mail (no actor). */
const actor = (a: Actor) => (a ? a.email : 'e-mail link');

/** An activity value for a table cell: a stage key, a tag list, a member, a folder or a note id. */
function activityValue(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.length ? v.join(', ') : null;
  if (typeof v === 'object') return person(v as Member);
  return String(v);
}

/** The submission as a triage verb shows it to people. */
function triageView(s: {
  id: string;
  stage: string;
  tags: string[];
  assignee: Member | null;
  notes_count: number;
  updated_at: string;
  etag: string;
}) {
  return {
    id: s.id,
    stage: s.stage,
    tags: s.tags.length ? s.tags.join(', ') : null,
    assignee: person(s.assignee),
    notes: s.notes_count,
    updated_at: s.updated_at,
    etag: s.etag,
  };
}

type Row = Record<string, unknown>;

/** Rows of the generated commands whose items nest what a table would leave out (tags, assignee, author, change). */
const VIEWS: Record<string, (item: Row) => Row> = {
  listSubmissions: (s) => ({
    id: s.id,
    received_at: s.received_at,
    status: s.status,
    category: s.category,
    stage: s.stage,
    tags: (s.tags as string[]).length ? (s.tags as string[]).join(', ') : null,
    assignee: (s.assignee as Member | null)?.email ?? null,
    payload: s.payload,
  }),
  listSubmissionNotes: (n) => ({ id: n.id, author: actor(n.author as Actor), created_at: n.created_at, body: n.body }),
  createSubmissionNote: (n) => ({ id: n.id, author: actor(n.author as Actor), created_at: n.created_at, body: n.body }),
  listSubmissionActivity: (e) => {
    const change = e.change as { field: string; from: unknown; to: unknown };
    return {
      at: e.at,
      actor: actor(e.actor as Actor),
      field: change.field,
      from: activityValue(change.from),
      to: activityValue(change.to),
    };
  },
};

/** An API answer as people read it: the route's rows flattened where a table would drop nested fields. */
export function humanBody(routeKey: string, body: unknown): unknown {
  const view = VIEWS[routeKey];
  if (!view || !body || typeof body !== 'object' || !('data' in body)) return body;
  const data = (body as { data: unknown }).data;
  return { ...body, data: Array.isArray(data) ? (data as Row[]).map(view) : view(data as Row) };
}

async function update(submission: string, o: TriageOpts, change: Record<string, unknown>): Promise<void> {
  const { url, token } = connection(o.profile);
  const client = createClient({ baseUrl: url, token });
  const body = { ...change };
  if (body.assignee_id === 'me') body.assignee_id = (await client.ok.getMe()).data.user.id;
  const res = await client.ok.updateSubmission({
    params: { form: o.form, submission },
    headers: o.ifMatch === undefined ? {} : { 'if-match': o.ifMatch },
    body,
  });
  print(o.json ? res : { data: triageView(res.data) }, Boolean(o.json));
}

/** A triage verb: `intake submissions <name> --form <id> [options] <submission> <rest…>`. */
function verb(group: Command, name: string, description: string, args: string[]): Command {
  const cmd = group.command(name).description(`${description}  ${ROUTE}`);
  cmd.argument('<submission>');
  for (const a of args) cmd.argument(a);
  cmd.usage(['--form <id>', '[options]', '<submission>', ...args].join(' '));
  return cmd.requiredOption('--form <id>', 'the form (frm_…)');
}

function common(cmd: Command): Command {
  cmd.option(
    '--if-match <etag>',
    'change it only if its ETag is still this one (`etag` of `submissions get`); otherwise 412 and nothing changes',
  );
  return withConnectionOptions(cmd).option('--json', 'print exactly the API data as JSON');
}

/** `tag`, `stage` and `assign` in the `submissions` group. */
export function registerTriage(submissions: Command): void {
  common(
    verb(submissions, 'tag', "Add, remove or replace a submission's tags", [])
      .option('--add <tags>', 'add these tags (comma-separated, or repeat the option)', collectList)
      .option('--remove <tags>', 'remove these tags', collectList)
      .option('--set <tags>', "replace all the tags with these (--set '' removes them all)", collectList),
  ).action(async (submission: string, o: TriageOpts & { add?: string[]; remove?: string[]; set?: string[] }) => {
    try {
      if (o.set && (o.add || o.remove))
        throw new UsageError('--set replaces the tags: give it without --add and --remove');
      if (!o.set && !o.add && !o.remove) throw new UsageError('give the tags to --add, --remove or --set');
      await update(submission, o, {
        ...(o.set ? { tags: o.set } : {}),
        ...(o.add ? { add_tags: o.add } : {}),
        ...(o.remove ? { remove_tags: o.remove } : {}),
      });
    } catch (err) {
      fail(err);
    }
  });

  common(
    verb(submissions, 'stage', 'Move a submission to a stage of its form (`intake forms stages frm_…` lists them)', [
      '[stage]',
    ]).option('--to <stage>', 'the stage key (instead of the argument)'),
  ).action(async (submission: string, stage: string | undefined, o: TriageOpts & { to?: string }) => {
    try {
      if (stage !== undefined && o.to !== undefined && stage !== o.to)
        throw new UsageError(`the stage is given twice, as ${stage} and as --to ${o.to}: give it once`);
      const to = stage ?? o.to;
      if (to === undefined) throw new UsageError('give the stage: `<stage>` or --to <stage>');
      await update(submission, o, { stage: to });
    } catch (err) {
      fail(err);
    }
  });

  common(
    verb(submissions, 'assign', 'Assign a submission to a member of the team: a user id, `me`, or `none` to unassign', [
      '<assignee>',
    ]),
  ).action(async (submission: string, assignee: string, o: TriageOpts) => {
    try {
      await update(submission, o, { assignee_id: assignee === 'none' ? null : assignee });
    } catch (err) {
      fail(err);
    }
  });
}
