import { Migration } from '@mikro-orm/migrations';

/**
 * Full-text search over submissions, retention caps per plan, and erasure requests. `submissions.search` is a
 * trigger-kept tsvector of the payload's strings and numbers and `_replyto` (`simple` + `unaccent`: any
 * language, case and accents ignored), indexed with the form id, positions stripped. A tsvector holds at most
 * 1 MB, so a huge payload is read through its first SEARCHED_CHARS characters.
 */
const SEARCHED_CHARS = 100_000;
/** Payloads up to this much JSON text go through jsonb_to_tsvector whole. */
const DIRECT_BYTES = 65_536;
export class Migration0010DataLifecycle extends Migration {
  override name = '0010-data-lifecycle';

  override up(): void {
    this.addSql(`create extension if not exists unaccent;`);
    this.addSql(`create extension if not exists btree_gin;`);
    this.addSql(`create text search configuration intake_search (copy = simple);`);
    this.addSql(
      `alter text search configuration intake_search alter mapping for word, hword, hword_part with unaccent, simple;`,
    );
    this.addSql(`
      do $migration$ begin
        execute format($f$
          create function submission_search(payload jsonb, metadata jsonb) returns tsvector language sql immutable parallel safe as $$
            select case when octet_length(payload::text) <= ${DIRECT_BYTES}
                     then strip(jsonb_to_tsvector('%1$I.intake_search'::regconfig, payload, '["string", "numeric"]'))
                     else strip(to_tsvector('%1$I.intake_search'::regconfig, left(coalesce(
                       (select string_agg(v #>> '{}', ' ') from jsonb_path_query(payload, 'strict $.**') v
                         where jsonb_typeof(v) in ('string', 'number')), ''), ${SEARCHED_CHARS})))
                   end
                   || to_tsvector('%1$I.intake_search'::regconfig, coalesce(metadata #>> '{controls,_replyto}', ''))
          $$;$f$, current_schema());
        -- A search box's text as a query: its words as the same parser reads them, each a prefix, all required.
        execute format($f$
          create function submission_search_query(q text) returns tsquery language sql immutable parallel safe as $$
            select coalesce(to_tsquery('%1$I.intake_search'::regconfig, string_agg(quote_literal(w) || ':*', ' & ')), ''::tsquery)
              from unnest(tsvector_to_array(to_tsvector('%1$I.intake_search'::regconfig, q))) w
          $$;$f$, current_schema());
      end $migration$;`);
    // Kept by a trigger from when a submission leaves `received`: computed at receipt, its index entries
    // would be built twice, since processing writes a new row version. Searchable once processed.
    this.addSql(`alter table submissions add column search tsvector;`);
    this.addSql(`
      create function keep_submission_search() returns trigger language plpgsql as $$
      begin
        new.search := case when new.status = 'received' then null else submission_search(new.payload, new.metadata) end;
        return new;
      end $$;`);
    this.addSql(
      `create trigger submissions_search before insert or update of payload, metadata, status on submissions for each row execute function keep_submission_search();`,
    );
    this.addSql(`update submissions set search = submission_search(payload, metadata) where status <> 'received';`);
    this.addSql(`create index submissions_search on submissions using gin (form_id, search) where search is not null;`);

    this.addSql(`alter table plans add column max_retention_days integer;`);
    this.addSql(`update plans set max_retention_days = 365 where id = 'free';`);

    // Erasure requests and their receipts. The value searched for is kept only encrypted, and only until
    // the request has run; the receipt keeps what was erased (counts, per form), never the data.
    this.addSql(`
      create table erasure_requests (
        id text primary key,
        team_id text not null references teams(id) on delete cascade,
        job_id text not null,
        kind text not null check (kind in ('email', 'value')),
        value_encrypted text,
        dry_run boolean not null,
        requested_by_token_id text,
        requested_by_user_id text,
        status text not null default 'queued' check (status in ('queued', 'running', 'succeeded', 'failed')),
        submissions integer not null default 0,
        files integer not null default 0,
        deliveries_redacted integer not null default 0,
        forms jsonb not null default '{}',
        created_at timestamptz not null default now(),
        finished_at timestamptz
      );`);
    this.addSql(`create index erasure_requests_team on erasure_requests (team_id, id desc);`);
  }

  override down(): void {
    this.addSql(`drop table erasure_requests;`);
    this.addSql(`alter table plans drop column max_retention_days;`);
    this.addSql(`drop index submissions_search;`);
    this.addSql(`drop trigger submissions_search on submissions;`);
    this.addSql(`drop function keep_submission_search();`);
    this.addSql(`alter table submissions drop column search;`);
    this.addSql(`drop function submission_search(jsonb, jsonb);`);
    this.addSql(`drop function submission_search_query(text);`);
    this.addSql(`drop text search configuration intake_search;`);
  }
}
