import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks (secret encrypted; a deleted one keeps its row so its log stays), their deliveries (one row per
 * webhook, submission or event, and replay; `request_body` is text so replays are byte-identical; no foreign
 * key to submissions, whose deletion redacts the log) and `jobs`, background work a client polls.
 */
export class Migration0007Webhooks extends Migration {
  override name = '0007-webhooks';

  override up(): void {
    this.addSql(`
      create table webhooks (
        id text primary key,
        team_id text not null references teams(id) on delete cascade,
        form_id text not null references forms(id) on delete cascade,
        label text not null,
        url text not null,
        provider text not null check (provider in ('slack', 'discord', 'teams', 'zapier', 'make', 'webhook')),
        config jsonb not null default '{}',
        events text[] not null default '{submission.created}',
        active boolean not null default true,
        deactivated_reason text,
        failing_since timestamptz,
        secret_encrypted text not null,
        secret_hash text not null,
        secret_last4 text not null,
        previous_secret_encrypted text,
        previous_secret_expires_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        deleted_at timestamptz
      );`);
    this.addSql(`create index webhooks_form on webhooks (form_id, id) where deleted_at is null;`);
    this.addSql(`create index webhooks_team on webhooks (team_id);`);
    this.addSql(`
      create table deliveries (
        id text primary key,
        team_id text not null references teams(id) on delete cascade,
        webhook_id text not null references webhooks(id) on delete cascade,
        event text not null,
        submission_id text,
        status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed', 'dead')),
        attempts integer not null default 0,
        http_status integer,
        duration_ms integer,
        error text,
        request_body text,
        response_body text,
        delivered_at timestamptz,
        next_attempt_at timestamptz,
        replay_of text,
        replay_job_id text,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );`);
    this.addSql(`create index deliveries_webhook on deliveries (webhook_id, id desc);`);
    this.addSql(`create index deliveries_submission on deliveries (submission_id) where submission_id is not null;`);
    this.addSql(`create index deliveries_due on deliveries (next_attempt_at) where status in ('pending', 'failed');`);
    this.addSql(`create index deliveries_created on deliveries (created_at);`);
    this.addSql(
      `create unique index deliveries_replay_once on deliveries (replay_job_id, replay_of) where replay_job_id is not null;`,
    );
    this.addSql(`
      create table jobs (
        id text primary key,
        team_id text not null references teams(id) on delete cascade,
        type text not null,
        status text not null default 'queued' check (status in ('queued', 'running', 'succeeded', 'failed')),
        params jsonb not null default '{}',
        total integer not null default 0,
        done integer not null default 0,
        failed integer not null default 0,
        errors jsonb not null default '[]',
        created_by text,
        created_at timestamptz not null default now(),
        started_at timestamptz,
        finished_at timestamptz
      );`);
    this.addSql(`create index jobs_team on jobs (team_id, id desc);`);
  }
}
