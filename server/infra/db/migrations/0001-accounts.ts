import { Migration } from '@mikro-orm/migrations';

export class Migration0001Accounts extends Migration {
  override name = '0001-accounts';

  override up(): void {
    this.addSql(`
      create table plans (
        id text primary key,
        name text not null,
        price_cents integer not null,
        monthly_submissions integer,
        max_forms integer,
        ai boolean not null,
        api_tokens boolean not null,
        file_uploads boolean not null,
        max_file_bytes bigint not null,
        storage_bytes bigint
      );`);
    this.addSql(`
      insert into plans (id, name, price_cents, monthly_submissions, max_forms, ai, api_tokens, file_uploads, max_file_bytes, storage_bytes) values
        ('free',  'Free',     0,    50,   3,    false, false, false, 0,        0),
        ('pro',   'Pro',   1900,  5000,   25,   true,  true,  true,  10485760, 10737418240),
        ('team',  'Team',  4900, 25000,   100,  true,  true,  true,  10485760, 53687091200),
        ('scale', 'Scale', 19900, null,   null, true,  true,  true,  10485760, null);`);
    this.addSql(`
      create table teams (
        id text primary key,
        name text not null,
        plan_id text not null references plans(id),
        created_at timestamptz not null default now()
      );`);
    this.addSql(`
      create table users (
        id text primary key,
        email text not null,
        name text not null,
        created_at timestamptz not null default now()
      );`);
    this.addSql(`create unique index users_email_unique on users (lower(email));`);
    this.addSql(`
      create table memberships (
        team_id text not null references teams(id) on delete cascade,
        user_id text not null references users(id) on delete cascade,
        role text not null check (role in ('owner', 'admin', 'editor', 'viewer')),
        created_at timestamptz not null default now(),
        primary key (team_id, user_id)
      );`);
    this.addSql(`
      create table api_tokens (
        id text primary key,
        team_id text not null references teams(id) on delete cascade,
        user_id text not null references users(id) on delete cascade,
        name text not null,
        abilities text[] not null,
        token_hash text not null unique,
        last4 text not null,
        last_used_at timestamptz,
        created_at timestamptz not null default now(),
        revoked_at timestamptz
      );`);
    this.addSql(`create index api_tokens_family on api_tokens (team_id, user_id, created_at);`);
    this.addSql(`
      create table subscriptions (
        id text primary key,
        team_id text not null unique references teams(id) on delete cascade,
        plan_id text not null references plans(id),
        status text not null,
        current_period_start timestamptz not null,
        current_period_end timestamptz not null,
        cancel_at_period_end boolean not null default false,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );`);
    this.addSql(`
      create table invoices (
        id text primary key,
        team_id text not null references teams(id) on delete cascade,
        number text not null unique,
        status text not null,
        currency text not null,
        amount_cents integer not null,
        period_start timestamptz not null,
        period_end timestamptz not null,
        issued_at timestamptz not null,
        paid_at timestamptz
      );`);
    this.addSql(`create index invoices_team on invoices (team_id, issued_at desc);`);
    // Accepted POSTs per team and billing period. Sharded 1024 ways (a random shard per increment) so concurrent
    // posts do not queue on one hot row; usage is the sum of the shards.
    this.addSql(`
      create table usage_counters (
        team_id text not null references teams(id) on delete cascade,
        period_start timestamptz not null,
        shard smallint not null,
        submissions integer not null default 0,
        primary key (team_id, period_start, shard)
      );`);
    // Fixed-window counters shared by every API process (API rate limit, ingest flood limit).
    this.addSql(`
      create unlogged table rate_limit_windows (
        key text not null,
        window_start timestamptz not null,
        hits integer not null,
        primary key (key, window_start)
      );`);
  }
}
