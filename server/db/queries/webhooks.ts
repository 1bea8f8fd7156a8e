import type { Sql } from '../database.ts';

/** A webhook as its routes show it (the encrypted secrets stay in the database layer's other queries). */
export type WebhookRow = {
  id: string;
  team_id: string;
  form_id: string;
  label: string;
  provider: string;
  url: string;
  active: boolean;
  deactivated_reason: string | null;
  config: Record<string, unknown>;
  events: string[];
  secret_last4: string;
  created_at: string;
  updated_at: string;
};

const COLUMNS = `w.id, w.team_id, w.form_id, w.label, w.provider, w.url, w.active, w.deactivated_reason, w.config, w.events, w.secret_last4,
  w.created_at, w.updated_at`;

export type NewWebhook = Omit<WebhookRow, 'created_at' | 'updated_at' | 'deactivated_reason'> & { secret_encrypted: string; secret_hash: string };

export async function insertWebhook(sql: Sql, w: NewWebhook): Promise<WebhookRow> {
  const { rows } = await sql.query<WebhookRow>(
    `insert into webhooks as w (id, team_id, form_id, label, provider, url, active, config, events, secret_last4, secret_encrypted, secret_hash)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) returning ${COLUMNS}`,
    [w.id, w.team_id, w.form_id, w.label, w.provider, w.url, w.active, JSON.stringify(w.config), w.events, w.secret_last4, w.secret_encrypted, w.secret_hash],
  );
  return rows[0]!;
}

export async function listWebhooks(sql: Sql, formId: string): Promise<WebhookRow[]> {
  const { rows } = await sql.query<WebhookRow>(`select ${COLUMNS} from webhooks w where w.form_id = $1 and w.deleted_at is null order by w.id`, [formId]);
  return rows;
}

/** A live (not deleted) webhook of the team; `formId` when the path names its form; `lock` for an update. */
export async function findWebhook(sql: Sql, teamId: string, id: string, opts: { formId?: string; lock?: boolean } = {}): Promise<WebhookRow | undefined> {
  const { rows } = await sql.query<WebhookRow>(
    `select ${COLUMNS} from webhooks w join forms f on f.id = w.form_id and f.deleted_at is null
      where w.id = $1 and w.team_id = $2 and w.deleted_at is null and ($3::text is null or w.form_id = $3)${opts.lock ? ' for update of w' : ''}`,
    [id, teamId, opts.formId ?? null],
  );
  return rows[0];
}

export type WebhookChanges = Partial<Pick<WebhookRow, 'label' | 'url' | 'provider' | 'config' | 'events' | 'active'>> & {
  rotated?: { secret_encrypted: string; secret_hash: string; secret_last4: string; previousValidSeconds: number };
};

/** Applies the changes; reactivating clears the reason and the failure clock; a rotation keeps the old secret signing for a while. */
export async function updateWebhook(sql: Sql, id: string, c: WebhookChanges): Promise<WebhookRow> {
  const { rows } = await sql.query<WebhookRow>(
    `update webhooks w set
        label = coalesce($2, label), url = coalesce($3, url), provider = coalesce($4, provider), config = coalesce($5::jsonb, config),
        events = coalesce($6::text[], events), active = coalesce($7, active),
        deactivated_reason = case when $7 then null else deactivated_reason end,
        failing_since = case when $7 then null else failing_since end,
        previous_secret_encrypted = case when $8::text is null then previous_secret_encrypted else secret_encrypted end,
        previous_secret_expires_at = case when $8::text is null then previous_secret_expires_at else now() + make_interval(secs => $11) end,
        secret_encrypted = coalesce($8, secret_encrypted), secret_hash = coalesce($9, secret_hash), secret_last4 = coalesce($10, secret_last4),
        updated_at = now()
      where id = $1 returning ${COLUMNS}`,
    [
      id,
      c.label ?? null,
      c.url ?? null,
      c.provider ?? null,
      c.config ? JSON.stringify(c.config) : null,
      c.events ?? null,
      c.active ?? null,
      c.rotated?.secret_encrypted ?? null,
      c.rotated?.secret_hash ?? null,
      c.rotated?.secret_last4 ?? null,
      c.rotated?.previousValidSeconds ?? 0,
    ],
  );
  return rows[0]!;
}

export async function deleteWebhook(sql: Sql, id: string): Promise<void> {
  await sql.query('update webhooks set deleted_at = now(), active = false, updated_at = now() where id = $1', [id]);
}

/** What a new delivery is rendered from: the live, active webhooks of a form subscribed to an event. */
export type TargetRow = { id: string; team_id: string; provider: string; config: Record<string, unknown> };

export async function webhooksFor(sql: Sql, formId: string, event: string): Promise<TargetRow[]> {
  const { rows } = await sql.query<TargetRow>(
    'select id, team_id, provider, config from webhooks where form_id = $1 and active and deleted_at is null and $2 = any(events) order by id',
    [formId, event],
  );
  return rows;
}

/** The same for a team-wide event (ai-insights.regenerated): every live form's webhooks that subscribe. */
export async function teamWebhooksFor(sql: Sql, teamId: string, event: string): Promise<TargetRow[]> {
  const { rows } = await sql.query<TargetRow>(
    `select w.id, w.team_id, w.provider, w.config from webhooks w join forms f on f.id = w.form_id and f.deleted_at is null
      where w.team_id = $1 and w.active and w.deleted_at is null and $2 = any(w.events) order by w.id`,
    [teamId, event],
  );
  return rows;
}

/** Locks the form's row and counts its live webhooks: creates on one form take turns. */
export async function lockFormWebhooks(sql: Sql, formId: string): Promise<number> {
  await sql.query('select 1 from forms where id = $1 for update', [formId]);
  const { rows } = await sql.query<{ n: number }>('select count(*)::int as n from webhooks where form_id = $1 and deleted_at is null', [formId]);
  return rows[0]!.n;
}
