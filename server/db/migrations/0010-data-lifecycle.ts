import { Migration } from '@mikro-orm/migrations';

/**
 * Data lifecycle: full-text search over submissions, retention caps per plan, and erasure requests.
 *
 * Search: `submissions.search` is a stored tsvector of every string and number of the payload (at any
 * depth) and the `_replyto` control, lower-cased and unaccented, in the `simple` configuration (no
 * stemming: any language); an address is one word (the parser keeps it whole). Kept by Postgres on
 * every insert and update (a generated column), indexed with the form id (btree_gin) so a query touches
 * only its form's postings. Only the first SEARCHED_CHARS characters are read, and positions are stripped
 * (no phrase search or ranking is offered): a tsvector holds at most 1 MB, and a huge post must still be
 * stored.
 */
const SEARCHED_CHARS = 100_000;
export class Migration0010DataLifecycle extends Migration {
  override name = '0010-data-lifecycle';

  override up(): void {
    this.addSql(`create extension if not exists unaccent;`);
    this.addSql(`create extension if not exists btree_gin;`);
    // unaccent() is only stable (its dictionary could change); the index needs an immutable wrapper,
    // pinned to the dictionary this schema holds.
    this.addSql(`
      create function intake_unaccent(text) returns text language sql immutable parallel safe strict
      set search_path from current as $$ select unaccent('unaccent'::regdictionary, $1) $$;`);
    this.addSql(`
      create function submission_search(payload jsonb, metadata jsonb) returns tsvector language sql immutable parallel safe
      set search_path from current as $$
        select strip(to_tsvector('simple'::regconfig, intake_unaccent(lower(left(
          coalesce(metadata #>> '{controls,_replyto}', '') || ' ' ||
          coalesce((select string_agg(v #>> '{}', ' ') from jsonb_path_query(payload, 'strict $.**') v
                     where jsonb_typeof(v) in ('string', 'number')), ''), ${SEARCHED_CHARS})))))
      $$;`);
    // A search box's text as a query: its words as the same parser reads them, each a prefix, all required.
    this.addSql(`
      create function submission_search_query(q text) returns tsquery language sql immutable parallel safe
      set search_path from current as $$
        select coalesce(to_tsquery('simple'::regconfig, string_agg(quote_literal(w) || ':*', ' & ')), ''::tsquery)
          from unnest(tsvector_to_array(to_tsvector('simple'::regconfig, intake_unaccent(lower(q))))) w
      $$;`);
    this.addSql(`alter table submissions add column search tsvector generated always as (submission_search(payload, metadata)) stored;`);
    this.addSql(`create index submissions_search on submissions using gin (form_id, search);`);

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
    this.addSql(`alter table submissions drop column search;`);
    this.addSql(`drop function submission_search(jsonb, jsonb);`);
    this.addSql(`drop function submission_search_query(text);`);
    this.addSql(`drop function intake_unaccent(text);`);
  }
}
