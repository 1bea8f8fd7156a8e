import type { Sql } from '../database.ts';
import type { SpamPosition } from './webhook-events.ts';

/** The owner of `webhooks`: their settings, secrets, pacing, spam position and failure clock. */

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
  /** Provider settings, stored once their provider's schema took them: strings. */
  config: Record<string, string>;
  events: string[];
  filter: FilterCondition[];
  /** Null: the provider's default pace (domain/webhooks/webhooks.ts). */
  max_per_second: number | null;
  /** Null: the default body (domain/webhooks/body-template.ts renders a template). */
  body_template: string | null;
  content_type: string;
  /** Extra request headers, as given. */
  headers: Record<string, string>;
  secret_last4: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
};

/** One condition of a webhook's filter, as stored (domain/delivery/filters.ts applies it). */
export type FilterCondition = { field: string; op: string; value?: string | number | string[] };

const COLUMNS = `w.id, w.team_id, w.form_id, w.label, w.provider, w.url, w.active, w.deactivated_reason, w.config, w.events, w.filter, w.max_per_second, w.secret_last4,
  w.body_template, w.content_type, w.headers, w.created_at, w.updated_at, w.deleted_at`;

/**
 * A spam subscription starts now: the spam-deliveries job sends the form's spam stored from stream number
 * `seq` (a submission-stream position: streamHead, queries/stream-heads.ts), none from before.
 */
const spamFrom = (seq: string) =>
  `jsonb_build_object('seq', ${seq}::text, 'id', '', 'at', floor(extract(epoch from now()) * 1000))`;

export type NewWebhook = Omit<WebhookRow, 'created_at' | 'updated_at' | 'deleted_at' | 'deactivated_reason'> & {
  secret_encrypted: string;
  secret_hash: string;
  /** The form's stream number now: where its spam starts, when subscribed. */
  spam_from: string;
};

export async function insertWebhook(sql: Sql, w: NewWebhook): Promise<WebhookRow> {
  const { rows } = await sql.query<WebhookRow>(
    `insert into webhooks as w (id, team_id, form_id, label, provider, url, active, config, events, secret_last4, secret_encrypted, secret_hash, filter, max_per_second,
                                body_template, content_type, headers, spam_position)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, case when 'submission.spam' = any($9::text[]) then ${spamFrom('$18')} end)
     returning ${COLUMNS}`,
    [
      w.id,
      w.team_id,
      w.form_id,
      w.label,
      w.provider,
      w.url,
      w.active,
      JSON.stringify(w.config),
      w.events,
      w.secret_last4,
      w.secret_encrypted,
      w.secret_hash,
      JSON.stringify(w.filter),
      w.max_per_second,
      w.body_template,
      w.content_type,
      JSON.stringify(w.headers),
      w.spam_from,
    ],
  );
  return rows[0]!;
}

export async function listWebhooks(sql: Sql, teamId: string, formId: string): Promise<WebhookRow[]> {
  const { rows } = await sql.query<WebhookRow>(
    `select ${COLUMNS} from webhooks w where w.form_id = $1 and w.team_id = $2 and w.deleted_at is null order by w.id`,
    [formId, teamId],
  );
  return rows;
}

/**
 * A live (not deleted) webhook of the team; `formId` when the path names its form; `lock` for an update;
 * `deleted` also finds a deleted one (of a live form), whose log stays readable.
 */
export async function findWebhook(
  sql: Sql,
  teamId: string,
  id: string,
  opts: { formId?: string; lock?: boolean; deleted?: boolean } = {},
): Promise<WebhookRow | undefined> {
  const { rows } = await sql.query<WebhookRow>(
    `select ${COLUMNS} from webhooks w join forms f on f.id = w.form_id and f.team_id = w.team_id and f.deleted_at is null
      where w.id = $1 and w.team_id = $2 and f.team_id = $2 and ($4 or w.deleted_at is null) and ($3::text is null or w.form_id = $3)${opts.lock ? ' for update of w' : ''}`,
    [id, teamId, opts.formId ?? null, opts.deleted ?? false],
  );
  return rows[0];
}

export type WebhookChanges = Partial<
  Pick<
    WebhookRow,
    | 'label'
    | 'url'
    | 'provider'
    | 'config'
    | 'events'
    | 'filter'
    | 'active'
    | 'max_per_second'
    | 'body_template'
    | 'content_type'
    | 'headers'
  >
> & {
  rotated?: { secret_encrypted: string; secret_hash: string; secret_last4: string; previousValidSeconds: number };
  /** The form's stream number now: where its spam starts, when this subscribes to it or reactivates it. */
  spamFrom: string;
};

/**
 * Applies the changes; reactivating clears the reason and the failure clock; a rotation keeps the old secret
 * signing for a while; subscribing to `submission.spam` (again), or reactivating, starts its spam from now
 * (an inactive webhook is sent nothing made meanwhile, as with its other events). The position and the time
 * are read in `v`: Citus refuses functions that are not immutable in an update's CASE, and stable ones
 * applied to columns.
 */
export async function updateWebhook(sql: Sql, teamId: string, id: string, c: WebhookChanges): Promise<WebhookRow> {
  const { rows } = await sql.query<WebhookRow>(
    `update webhooks w set
        label = coalesce($2, label), url = coalesce($3, url), provider = coalesce($4, provider), config = coalesce($5::jsonb, config),
        spam_position = case when 'submission.spam' = any($6::text[]) and not 'submission.spam' = any(events) then v.spam_from_now
                             when $7 and not active then v.spam_from_now else spam_position end,
        events = coalesce($6::text[], events), active = coalesce($7, active), filter = coalesce($12::jsonb, filter),
        max_per_second = case when $13 then $14::real else max_per_second end,
        body_template = case when $15 then $16::text else body_template end, content_type = coalesce($17, content_type),
        headers = coalesce($18::jsonb, headers),
        deactivated_reason = case when $7 then null else deactivated_reason end,
        failing_since = case when $7 then null else failing_since end,
        previous_secret_encrypted = case when $8::text is null then previous_secret_encrypted else secret_encrypted end,
        previous_secret_expires_at = case when $8::text is null then previous_secret_expires_at else v.previous_until end,
        secret_encrypted = coalesce($8, secret_encrypted), secret_hash = coalesce($9, secret_hash), secret_last4 = coalesce($10, secret_last4),
        updated_at = now()
       from (select ${spamFrom('$20')} as spam_from_now, now() + make_interval(secs => $11) as previous_until) v
      where w.id = $1 and w.team_id = $19 returning ${COLUMNS}`,
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
      c.filter ? JSON.stringify(c.filter) : null,
      c.max_per_second !== undefined,
      c.max_per_second ?? null,
      c.body_template !== undefined,
      c.body_template ?? null,
      c.content_type ?? null,
      c.headers ? JSON.stringify(c.headers) : null,
      teamId,
      c.spamFrom,
    ],
  );
  return rows[0]!;
}

export async function deleteWebhook(sql: Sql, teamId: string, id: string): Promise<void> {
  // `active` stays as it was: a deleted webhook's scheduled retries still run, unless it had been deactivated.
  await sql.query('update webhooks set deleted_at = now(), updated_at = now() where id = $1 and team_id = $2', [
    id,
    teamId,
  ]);
}

/** What a new delivery is rendered from: the live, active webhooks of a form subscribed to an event. */
export type TargetRow = {
  id: string;
  team_id: string;
  provider: string;
  config: Record<string, unknown>;
  filter: FilterCondition[];
  /** Null: the default body; with `content_type`, how submission events are rendered. */
  body_template: string | null;
  content_type: string;
};

/**
 * The form's webhooks subscribed to a submission event; with `submissionId`, without those that already have
 * a delivery of it for that event from processing (not a replay): a submission is delivered to each webhook
 * at most once, however often it goes back to `received` and through processing again. `rules.ids`: webhooks a
 * fired rule sends it to, whatever their events and filter (`by_rule`); `rules.only`: those alone.
 */
export async function webhooksFor(
  sql: Sql,
  teamId: string,
  formId: string,
  event: string,
  submissionId?: string,
  rules: { ids: readonly string[]; only?: boolean } = { ids: [] },
): Promise<Array<TargetRow & { by_rule: boolean }>> {
  const { rows } = await sql.query<TargetRow & { by_rule: boolean }>(
    `select w.id, w.team_id, w.provider, w.config, w.filter, w.body_template, w.content_type, w.id = any($4::text[]) as by_rule from webhooks w
      where w.form_id = $1 and w.team_id = $6 and w.active and w.deleted_at is null and ((not $5 and $2 = any(w.events)) or w.id = any($4::text[]))
        and ($3::text is null or not exists (
          select 1 from deliveries d
           where d.submission_id = $3 and d.team_id = $6 and d.webhook_id = w.id and d.event = $2 and d.replay_of is null))
      order by w.id`,
    [formId, event, submissionId ?? null, rules.ids, rules.only ?? false, teamId],
  );
  return rows;
}

/**
 * The form's webhooks subscribed to an event of the form itself (form.closed), without those that already have a
 * delivery of it (not a replay) made since `since`: a job retried after its deliveries committed makes none again.
 */
export async function formEventWebhooksFor(
  sql: Sql,
  teamId: string,
  formId: string,
  event: string,
  since: Date,
): Promise<TargetRow[]> {
  const { rows } = await sql.query<TargetRow>(
    `select w.id, w.team_id, w.provider, w.config, w.filter, w.body_template, w.content_type from webhooks w
      where w.form_id = $1 and w.team_id = $4 and w.active and w.deleted_at is null and $2 = any(w.events)
        and not exists (
          select 1 from deliveries d
           where d.webhook_id = w.id and d.team_id = $4 and d.event = $2 and d.replay_of is null and d.created_at >= $3)
      order by w.id`,
    [formId, event, since, teamId],
  );
  return rows;
}

/** The same for a team-wide event (ai-insights.regenerated): every live form's webhooks that subscribe. */
export async function teamWebhooksFor(sql: Sql, teamId: string, event: string): Promise<TargetRow[]> {
  const { rows } = await sql.query<TargetRow>(
    `select w.id, w.team_id, w.provider, w.config, w.filter, w.body_template, w.content_type from webhooks w
       join forms f on f.id = w.form_id and f.team_id = w.team_id and f.deleted_at is null
      where w.team_id = $1 and f.team_id = $1 and w.active and w.deleted_at is null and $2 = any(w.events) order by w.id`,
    [teamId, event],
  );
  return rows;
}

/** Locks the form's row and counts its live webhooks: creates on one form take turns. */
export async function lockFormWebhooks(sql: Sql, teamId: string, formId: string): Promise<number> {
  await sql.query('select 1 from forms where id = $1 and team_id = $2 for no key update', [formId, teamId]);
  const { rows } = await sql.query<{ n: number }>(
    'select count(*)::int as n from webhooks where form_id = $1 and team_id = $2 and deleted_at is null',
    [formId, teamId],
  );
  return rows[0]!.n;
}

/** A webhook subscribed to `submission.spam`, with how far its form's spam has been sent to it. */
export type SpamSubscriber = TargetRow & {
  form_id: string;
  /** `at`: when it was written (ms since the epoch). */
  spam_position: SpamPosition & { at?: number };
};

const SPAM_SUBSCRIBED = `w.deleted_at is null and 'submission.spam' = any(w.events) and w.active and w.spam_position is not null`;

/**
 * Up to `limit` teams after `after` with a webhook subscribed to `submission.spam`, by id: the spam-deliveries
 * job's walk (a declared cross-team sweep, docs/scaling.md), which then serves each team on its own shard.
 */
export async function spamSubscriberTeams(sql: Sql, limit: number, after: string | null): Promise<string[]> {
  const { rows } = await sql.query<{ team_id: string }>(
    `select distinct w.team_id from webhooks w where ${SPAM_SUBSCRIBED} and ($2::text is null or w.team_id > $2)
      order by w.team_id limit $1`,
    [limit, after],
  );
  return rows.map((r) => r.team_id);
}

/**
 * Up to `limit` of a team's live, active webhooks subscribed to `submission.spam` after `after`, locked for this
 * transaction; those another worker holds are skipped (it is serving them), so no spam event is sent twice.
 */
export async function lockSpamSubscribers(
  sql: Sql,
  teamId: string,
  limit: number,
  after: string | null,
): Promise<SpamSubscriber[]> {
  const { rows } = await sql.query<SpamSubscriber>(
    `select w.id, w.team_id, w.form_id, w.provider, w.config, w.filter, w.body_template, w.content_type, w.spam_position from webhooks w
      where w.team_id = $3 and ${SPAM_SUBSCRIBED} and ($2::text is null or w.id > $2)
      order by w.id limit $1 for update skip locked`,
    [limit, after, teamId],
  );
  return rows;
}

export async function setSpamPosition(
  sql: Sql,
  teamId: string,
  id: string,
  position: SpamSubscriber['spam_position'],
): Promise<void> {
  await sql.query('update webhooks set spam_position = $2 where id = $1 and team_id = $3', [
    id,
    JSON.stringify(position),
    teamId,
  ]);
}

/** Whether any webhook subscribes to `submission.spam` (the spam-deliveries job keeps running while one does). */
export async function anySpamSubscriber(sql: Sql): Promise<boolean> {
  const { rows } = await sql.query<{ any: boolean }>(
    `select exists (select 1 from webhooks where deleted_at is null and 'submission.spam' = any(events) and active) as any`,
  );
  return rows[0]!.any;
}

/** The team of a webhook found by id alone (a job queued without its team): a statement on every shard. */
export async function webhookTeam(sql: Sql, id: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ team_id: string }>('select team_id from webhooks where id = $1', [id]);
  return rows[0]?.team_id;
}

/** Where a webhook's test call goes and the secrets that sign it (the previous one while it still signs). */
export async function webhookTarget(
  sql: Sql,
  teamId: string,
  id: string,
): Promise<
  | {
      url: string;
      secret_encrypted: string;
      previous_secret_encrypted: string | null;
      form_name: string;
      headers: Record<string, string>;
    }
  | undefined
> {
  const { rows } = await sql.query<{
    url: string;
    secret_encrypted: string;
    previous_secret_encrypted: string | null;
    form_name: string;
    headers: Record<string, string>;
  }>(
    `select w.url, w.secret_encrypted, w.headers, case when w.previous_secret_expires_at > now() then w.previous_secret_encrypted end as previous_secret_encrypted,
            f.name as form_name
       from webhooks w join forms f on f.id = w.form_id and f.team_id = w.team_id
      where w.id = $1 and w.team_id = $2 and f.team_id = $2`,
    [id, teamId],
  );
  return rows[0];
}

/**
 * Takes a paced webhook's next send slot if it is free now (and the webhook is not paused): the slot moves on
 * by `gapMs`, atomically, so workers in every process share one pace. Otherwise says when to try again.
 */
export async function takeSendSlot(
  sql: Sql,
  teamId: string,
  webhookId: string,
  gapMs: number,
): Promise<{ taken: true } | { taken: false; at: Date }> {
  const { rows } = await sql.query<{ taken: boolean; at: Date | null }>(
    `with t as (
       update webhooks set next_send_at = now() + make_interval(secs => $2::float8 / 1000)
        where id = $1 and team_id = $3 and coalesce(next_send_at, '-infinity') <= now() and coalesce(paused_until, '-infinity') <= now()
       returning 1)
     select exists (select 1 from t) as taken, greatest(next_send_at, paused_until) as at from webhooks where id = $1 and team_id = $3`,
    [webhookId, gapMs, teamId],
    'intake_webhook_take_slot',
  );
  const r = rows[0];
  if (!r || r.taken) return { taken: true };
  return { taken: false, at: new Date(r.at ?? Date.now()) };
}

/** A receiver's 429 with `Retry-After`: every delivery of the webhook waits until `until` (a later pause stands). */
export async function pauseWebhook(sql: Sql, teamId: string, webhookId: string, until: Date): Promise<Date> {
  const { rows } = await sql.query<{ paused_until: Date }>(
    `update webhooks set paused_until = greatest(coalesce(paused_until, '-infinity'), $2::timestamptz)
      where id = $1 and team_id = $3 returning paused_until`,
    [webhookId, until.toISOString(), teamId],
    'intake_webhook_pause',
  );
  return rows[0] ? new Date(rows[0].paused_until) : until;
}

/** A failed attempt starts the webhook's failure clock (if not running); true once it has run `disableAfterSeconds`. */
export async function failingFor(
  sql: Sql,
  teamId: string,
  webhookId: string,
  disableAfterSeconds: number,
): Promise<boolean> {
  const { rows } = await sql.query<{ expired: boolean }>(
    `with started as (
       update webhooks set failing_since = now() where id = $1 and team_id = $3 and failing_since is null returning failing_since)
     select coalesce((select failing_since from started), (select failing_since from webhooks where id = $1 and team_id = $3))
              <= now() - make_interval(secs => $2) as expired`,
    [webhookId, disableAfterSeconds, teamId],
    'intake_webhook_failing',
  );
  return rows[0]?.expired ?? false;
}

/** Deactivates an active webhook; true when this call did it (so its owners are told once). */
export async function deactivateWebhook(
  sql: Sql,
  teamId: string,
  webhookId: string,
  reason: 'gone' | 'failing',
): Promise<boolean> {
  const { rowCount } = await sql.query(
    `update webhooks set active = false, deactivated_reason = $2, updated_at = now()
      where id = $1 and team_id = $3 and active and deleted_at is null`,
    [webhookId, reason, teamId],
  );
  return rowCount > 0;
}
