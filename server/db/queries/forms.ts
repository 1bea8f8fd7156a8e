import type { Sql } from '../database.ts';

export async function countLiveForms(sql: Sql, teamId: string): Promise<number> {
  const { rows } = await sql.query<{ n: number }>('select count(*)::int as n from forms where team_id = $1 and deleted_at is null', [teamId]);
  return rows[0]!.n;
}

/** Submissions per form, from the per-folder counters (kept exact by triggers). */
export async function submissionCounts(sql: Sql, formIds: string[]): Promise<Map<string, number>> {
  if (!formIds.length) return new Map();
  const { rows } = await sql.query<{ form_id: string; n: number }>(
    'select form_id, sum(n)::int as n from form_folder_counts where form_id = any($1::text[]) group by form_id',
    [formIds],
  );
  return new Map(rows.map((r) => [r.form_id, r.n]));
}

/** Whether the form is a live form of the team (every submission route starts here). */
export async function isLiveForm(sql: Sql, teamId: string, formId: string): Promise<boolean> {
  const { rowCount } = await sql.query('select 1 from forms where id = $1 and team_id = $2 and deleted_at is null', [formId, teamId]);
  return rowCount > 0;
}

export async function formStorageKeys(sql: Sql, formId: string): Promise<string[]> {
  const { rows } = await sql.query<{ storage_key: string }>('select storage_key from submission_files where form_id = $1', [formId]);
  return rows.map((r) => r.storage_key);
}

/** The folder counters of an erased form (the form's row goes through the ORM; its submissions cascade). */
export async function eraseFormCounters(sql: Sql, formId: string): Promise<void> {
  await sql.query('delete from form_folder_counts where form_id = $1', [formId]);
}
