import type { Ability, Role } from '../../contract/abilities.ts';
import { newId } from '../../server/domain/shared/ids.ts';
import { issueToken } from '../../server/domain/accounts/tokens.ts';
import { addMember } from '../../server/domain/accounts/users.ts';
import { encryptSecret, generateSecret } from '../../server/infra/outbound/signing.ts';
import { randomBytes } from 'node:crypto';
import type { Sql } from '../../server/infra/db/database.ts';
import { FOLDER_SHARD, folderOf } from '../../server/infra/db/queries/submissions.ts';
import type { TestApp, TestMember } from './harness.ts';

/**
 * Records of a team, one per kind of path parameter in the contract, written straight to the tables so a
 * test can point any route at a real record of a team of its choice. `made` holds the records already made
 * for the parameters to the left in a path, so a child is built under its parent (`/forms/:form/webhooks/:webhook`);
 * a parameter whose parent is not in `made` gets a fresh parent.
 */
export type RecordFactory = (t: TestApp, member: TestMember, made: Record<string, string>) => Promise<string>;

export async function insertForm(t: TestApp, teamId: string): Promise<string> {
  const id = newId('frm');
  await t.ctx.db.query(`insert into forms (id, team_id, name) values ($1, $2, 'Records form')`, [id, teamId]);
  await t.ctx.db.query('insert into form_teams (form_id, team_id) values ($1, $2)', [id, teamId]);
  return id;
}

/**
 * A form's folder counters rebuilt from its rows, as the statements that store and move submissions keep them
 * (queries/submissions.ts, countingChanges): for rows a test inserted by SQL.
 */
export async function recountFolders(sql: Sql, teamId: string, formId: string): Promise<void> {
  await sql.query('delete from form_folder_counts where form_id = $1 and team_id = $2', [formId, teamId]);
  await sql.query(
    `insert into form_folder_counts (team_id, form_id, folder, day, shard, n)
     select $2, $1, ${folderOf('status')}, (received_at at time zone 'UTC')::date, ${FOLDER_SHARD}, count(*)
       from submissions where form_id = $1 and team_id = $2 group by 3, 4`,
    [formId, teamId],
  );
}

export async function insertSubmission(
  t: TestApp,
  teamId: string,
  formId: string,
  status = 'received',
): Promise<string> {
  const id = newId('subm');
  await t.ctx.db.query(
    `insert into submissions (id, team_id, form_id, status, payload) values ($1, $2, $3, $4, '{"email":"a@example.test"}'::jsonb)`,
    [id, teamId, formId, status],
  );
  await recountFolders(t.ctx.db, teamId, formId);
  return id;
}

export async function insertFile(t: TestApp, teamId: string, formId: string, submissionId: string): Promise<string> {
  const id = newId('file');
  await t.ctx.db.query(
    `insert into submission_files (id, team_id, form_id, submission_id, field, filename, content_type, size_bytes, storage_key)
     values ($1, $2, $3, $4, 'upload', 'a.txt', 'text/plain', 1, $5)`,
    [id, teamId, formId, submissionId, `records/${id}`],
  );
  return id;
}

/** A webhook with a real encrypted secret: routes that sign (the test call) can use it. */
export async function insertWebhook(t: TestApp, teamId: string, formId: string): Promise<string> {
  const id = newId('wh');
  await t.ctx.db.query(
    `insert into webhooks (id, team_id, form_id, label, url, provider, secret_encrypted, secret_hash, secret_last4)
     values ($1, $2, $3, 'Records hook', 'https://example.com/hook', 'webhook', $4, 'x', 'abcd')`,
    [id, teamId, formId, encryptSecret(t.ctx.keys.webhookSecrets, generateSecret())],
  );
  return id;
}

/** A dead delivery (replayable) of a submission of the webhook's form. */
export async function insertDelivery(t: TestApp, teamId: string, webhookId: string): Promise<string> {
  const { rows } = await t.ctx.db.query<{ form_id: string }>('select form_id from webhooks where id = $1', [webhookId]);
  const submissionId = await insertSubmission(t, teamId, rows[0]!.form_id);
  const id = newId('whd');
  await t.ctx.db.query(
    `insert into deliveries (id, team_id, webhook_id, event, submission_id, request_body, status, attempts)
     values ($1, $2, $3, 'submission.created', $4, '{"type":"submission.created"}', 'dead', 7)`,
    [id, teamId, webhookId, submissionId],
  );
  return id;
}

export async function insertJob(t: TestApp, teamId: string): Promise<string> {
  const id = newId('job');
  await t.ctx.db.query(`insert into jobs (id, team_id, type) values ($1, $2, 'webhook_replay')`, [id, teamId]);
  return id;
}

export const recordFactories: Record<string, RecordFactory> = {
  // A token of the member itself (a member may revoke only its own), with an ability every role holds.
  token: async (t, member) => {
    const created = await issueToken(t.ctx, {
      teamId: member.teamId,
      userId: member.userId,
      name: 'records',
      abilities: ['forms:read'],
    });
    return created.data.id;
  },
  form: (t, member) => insertForm(t, member.teamId),
  submission: async (t, member, made) =>
    insertSubmission(t, member.teamId, made.form ?? (await insertForm(t, member.teamId))),
  file: async (t, member, made) => {
    const form = made.form ?? (await insertForm(t, member.teamId));
    return insertFile(t, member.teamId, form, made.submission ?? (await insertSubmission(t, member.teamId, form)));
  },
  note: async (t, member, made) => {
    const form = made.form ?? (await insertForm(t, member.teamId));
    const submission = made.submission ?? (await insertSubmission(t, member.teamId, form));
    const id = newId('note');
    await t.ctx.db.query(
      `insert into submission_notes (id, team_id, submission_id, author_user_id, body) values ($1, $2, $3, $4, 'note')`,
      [id, member.teamId, submission, member.userId],
    );
    return id;
  },
  rule: async (t, member, made) => {
    const id = newId('rule');
    await t.ctx.db.query(
      `insert into form_rules (id, team_id, form_id, position, name, enabled, on_event, "when", actions, stop, fallback)
       values ($1, $2, $3, 1, 'Rule', true, 'submission.created', '{"all":[]}', '[{"type":"tag","add":["x"]}]', false, false)`,
      [id, member.teamId, made.form ?? (await insertForm(t, member.teamId))],
    );
    return id;
  },
  webhook: async (t, member, made) =>
    insertWebhook(t, member.teamId, made.form ?? (await insertForm(t, member.teamId))),
  webhook_id: async (t, member) => insertWebhook(t, member.teamId, await insertForm(t, member.teamId)),
  delivery: async (t, member, made) =>
    insertDelivery(
      t,
      member.teamId,
      made.webhook ?? (await insertWebhook(t, member.teamId, made.form ?? (await insertForm(t, member.teamId)))),
    ),
  delivery_id: async (t, member) =>
    insertDelivery(t, member.teamId, await insertWebhook(t, member.teamId, await insertForm(t, member.teamId))),
  job_id: (t, member) => insertJob(t, member.teamId),
  erasure: async (t, member) => {
    const id = newId('era');
    const job = await insertJob(t, member.teamId);
    await t.ctx.db.query(
      `insert into erasure_requests (id, team_id, job_id, kind, dry_run) values ($1, $2, $3, 'email', true)`,
      [id, member.teamId, job],
    );
    return id;
  },
};

/** Records for `params` in order, children under the records already in `made` (which is not changed). */
export async function makeRecords(
  t: TestApp,
  member: TestMember,
  params: string[],
  made: Record<string, string> = {},
): Promise<Record<string, string>> {
  const out = { ...made };
  for (const p of params) {
    const factory = recordFactories[p];
    if (!factory)
      throw new Error(`No record factory for path parameter "${p}": add one to test/support/team-records.ts`);
    if (!(p in out)) out[p] = await factory(t, member, out);
  }
  return out;
}

export type RoleMember = TestMember & { email: string; role: Role };

/**
 * A member of `teamId` with `role` (through the same domain functions as `intake admin user create`) and a
 * token: by default the role's whole ceiling.
 */
export async function makeRoleMember(
  t: TestApp,
  teamId: string,
  role: Role,
  abilities?: Ability[],
): Promise<RoleMember> {
  const email = `role-${randomBytes(5).toString('hex')}@example.test`;
  const { user } = await addMember(t.ctx, { email, name: `A ${role}`, teamId, role });
  const created = await issueToken(t.ctx, { teamId, userId: user.id, name: `${role} token`, abilities });
  return { teamId, userId: user.id, role, email, token: created.token, tokenId: created.data.id };
}

/** Changes the member's role the way an operator does (`intake admin user create` with the same e-mail). */
export async function changeRole(t: TestApp, member: RoleMember, role: Role): Promise<RoleMember> {
  await addMember(t.ctx, { email: member.email, name: `A ${role}`, teamId: member.teamId, role });
  return { ...member, role };
}
