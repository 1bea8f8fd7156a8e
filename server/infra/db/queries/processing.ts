import type { Sql } from '../database.ts';
import type { RuleRow } from './rules.ts';

/**
 * What the process-submission job and the notification e-mail read. Their writes to the submission (the
 * verdict, a processing error, `failed`) are in submissions.ts, the table's owner module.
 */

export type ProcessingRow = {
  id: string;
  team_id: string;
  form_id: string;
  status: string;
  spam_reason: string | null;
  category: string | null;
  payload: Record<string, unknown>;
  metadata: { controls?: Record<string, unknown>; referrer?: string | null };
  api_token_id: string | null;
  tags: string[];
  stage: string;
  assignee_id: string | null;
  /** Set when the submission was processed before (it was marked not spam since). */
  rules_applied: unknown[] | null;
  settings: unknown;
  notification_emails: string[];
  /** The team's plan includes AI. */
  ai: boolean;
  /** The payload has a name its form has not learned (its post could not learn it when accepted, or the form is at its limit). */
  unlearned: boolean;
  /** The form's enabled rules, in order. */
  rules: RuleRow[];
};

/** The team of a submission found by id alone (a job queued without its team): a statement on every shard. */
export async function submissionTeam(sql: Sql, submissionId: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ team_id: string }>('select team_id from submissions where id = $1', [
    submissionId,
  ]);
  return rows[0]?.team_id;
}

export async function findForProcessing(
  sql: Sql,
  teamId: string,
  submissionId: string,
): Promise<ProcessingRow | undefined> {
  const { rows } = await sql.query<ProcessingRow>(
    `select s.id, s.team_id, s.form_id, s.status, s.spam_reason, s.category, s.payload, s.metadata, s.api_token_id, s.tags, s.stage, s.assignee_id, s.rules_applied, f.settings,
            f.notification_emails, p.ai,
            (select coalesce(json_agg(r order by r.position), '[]') from form_rules r
              where r.form_id = s.form_id and r.team_id = $2 and r.enabled) as rules,
            exists (select 1 from jsonb_object_keys(s.payload) k
                     where not exists (select 1 from form_fields ff where ff.form_id = s.form_id and ff.team_id = $2 and ff.name = k)) as unlearned
       from submissions s join forms f on f.id = s.form_id and f.team_id = s.team_id join teams t on t.id = s.team_id join plans p on p.id = t.plan_id
      where s.id = $1 and s.team_id = $2 and f.team_id = $2 and t.id = $2`,
    [submissionId, teamId],
  );
  return rows[0];
}
