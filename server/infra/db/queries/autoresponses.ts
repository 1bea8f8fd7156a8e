import type { Sql } from '../database.ts';

/** What the autoresponder reads, and the owner of `autoresponse_sends` (its hourly send per address). */

export type AutoresponseRow = {
  id: string;
  status: string;
  team_id: string;
  form_id: string;
  payload: Record<string, unknown>;
  metadata: { controls?: Record<string, unknown> };
  autoresponse: Record<string, unknown> | null;
  settings: unknown;
  /** The team's plan includes the autoresponder. */
  allowed: boolean;
};

export async function findForAutoresponse(
  sql: Sql,
  teamId: string,
  submissionId: string,
): Promise<AutoresponseRow | undefined> {
  const { rows } = await sql.query<AutoresponseRow>(
    `select s.id, s.status, s.team_id, s.form_id, s.payload, s.metadata, s.autoresponse, f.settings, p.autoresponder as allowed
       from submissions s join forms f on f.id = s.form_id and f.team_id = s.team_id
       join teams t on t.id = s.team_id join plans p on p.id = t.plan_id
      where s.id = $1 and s.team_id = $2 and f.team_id = $2 and t.id = $2`,
    [submissionId, teamId],
  );
  return rows[0];
}

/**
 * Takes the form's hourly send for this address (its keyed hash): true when none was sent in the last
 * hour, or the one sent was for this same submission (a retried job may send again). The conflict clause
 * reads the time only from `excluded`: Citus allows no stable function (now()) there.
 */
export async function claimSend(
  sql: Sql,
  form: { team_id: string; form_id: string },
  addressHash: string,
  submissionId: string,
): Promise<boolean> {
  const { rowCount } = await sql.query(
    `insert into autoresponse_sends as a (team_id, form_id, address_hash, submission_id, sent_at) values ($4, $1, $2, $3, now())
       on conflict (form_id, address_hash, team_id) do update set submission_id = excluded.submission_id, sent_at = excluded.sent_at
        where excluded.sent_at - a.sent_at >= interval '1 hour' or a.submission_id = excluded.submission_id
     returning 1`,
    [form.form_id, addressHash, submissionId, form.team_id],
  );
  return rowCount > 0;
}
