import type { Sql } from '../database.ts';

/** The owner of `form_rules`. */

export type RuleRow = {
  id: string;
  form_id: string;
  position: number;
  name: string;
  enabled: boolean;
  on_event: string;
  when: { all: unknown[] } | { any: unknown[] };
  actions: Array<Record<string, unknown> & { type: string }>;
  stop: boolean;
  fallback: boolean;
  created_at: string;
  updated_at: string;
};

export type RuleFields = Pick<RuleRow, 'name' | 'enabled' | 'on_event' | 'when' | 'actions' | 'stop' | 'fallback'>;

const COLUMNS =
  'id, form_id, position, name, enabled, on_event, "when", actions, stop, fallback, created_at, updated_at';

/** The form's rules in the order they run. */
export async function listRules(sql: Sql, teamId: string, formId: string): Promise<RuleRow[]> {
  const { rows } = await sql.query<RuleRow>(
    `select ${COLUMNS} from form_rules where form_id = $1 and team_id = $2 order by position`,
    [formId, teamId],
  );
  return rows;
}

export async function findRule(sql: Sql, teamId: string, formId: string, id: string): Promise<RuleRow | undefined> {
  const { rows } = await sql.query<RuleRow>(
    `select ${COLUMNS} from form_rules where id = $1 and form_id = $2 and team_id = $3`,
    [id, formId, teamId],
  );
  return rows[0];
}

/** Holds the form's row until the transaction ends, so its rules change one writer at a time; their count. */
export async function lockFormRules(sql: Sql, teamId: string, formId: string): Promise<number> {
  const { rows } = await sql.query<{ count: number }>(
    `select (select count(*)::int from form_rules r where r.form_id = $1 and r.team_id = $2) as count
       from forms f where f.id = $1 and f.team_id = $2 for update of f`,
    [formId, teamId],
  );
  return rows[0]?.count ?? 0;
}

/** Inserts a rule at `position` (1-based; the rules from there move down one). */
export async function insertRule(
  sql: Sql,
  r: RuleFields & { id: string; teamId: string; formId: string; position: number },
): Promise<RuleRow> {
  await sql.query(
    'update form_rules set position = position + 1 where form_id = $1 and team_id = $3 and position >= $2',
    [r.formId, r.position, r.teamId],
  );
  const { rows } = await sql.query<RuleRow>(
    `insert into form_rules (id, team_id, form_id, position, name, enabled, on_event, "when", actions, stop, fallback)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) returning ${COLUMNS}`,
    [
      r.id,
      r.teamId,
      r.formId,
      r.position,
      r.name,
      r.enabled,
      r.on_event,
      JSON.stringify(r.when),
      JSON.stringify(r.actions),
      r.stop,
      r.fallback,
    ],
  );
  return rows[0]!;
}

export async function updateRule(sql: Sql, teamId: string, id: string, r: RuleFields): Promise<RuleRow> {
  const { rows } = await sql.query<RuleRow>(
    `update form_rules set name = $2, enabled = $3, on_event = $4, "when" = $5, actions = $6, stop = $7, fallback = $8,
            updated_at = now()
      where id = $1 and team_id = $9 returning ${COLUMNS}`,
    [id, r.name, r.enabled, r.on_event, JSON.stringify(r.when), JSON.stringify(r.actions), r.stop, r.fallback, teamId],
  );
  return rows[0]!;
}

/** Deletes a rule; the rules after it move up one. */
export async function deleteRule(sql: Sql, teamId: string, formId: string, id: string): Promise<void> {
  await sql.query(
    `with gone as (delete from form_rules where id = $1 and form_id = $2 and team_id = $3 returning position)
     update form_rules r set position = r.position - 1
       from gone where r.form_id = $2 and r.team_id = $3 and r.position > gone.position`,
    [id, formId, teamId],
  );
}

/** Gives the form's rules the positions of `ids` (every rule of the form, once each: checked by the caller). */
export async function orderRules(sql: Sql, teamId: string, formId: string, ids: string[]): Promise<void> {
  await sql.query(
    `update form_rules r set position = o.n, updated_at = now()
       from unnest($2::text[]) with ordinality as o(id, n)
      where r.form_id = $1 and r.team_id = $3 and r.id = o.id and r.position <> o.n`,
    [formId, ids, teamId],
  );
}
