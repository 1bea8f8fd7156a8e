import type pg from 'pg';
import { pino } from 'pino';
import { loadConfig } from '../../server/config.ts';
import type { Caller } from '../../server/domain/accounts/caller.ts';
import { createForm, publishForm } from '../../server/domain/forms/forms.ts';
import { createTeam } from '../../server/domain/accounts/teams.ts';
import { issueToken } from '../../server/domain/accounts/tokens.ts';
import { addMember } from '../../server/domain/accounts/users.ts';
import { boot } from '../../server/main.ts';
import { COMPANIES, FIRST, LAST, SENTENCES, SUBJECTS } from './contact-form.ts';
import { checkInterrupted, log, round } from './submissions-context.ts';

/** The submissions benchmark's data: an account through the domain, then a year of contact-form posts in bulk SQL. */

const FIELDS = ['name', 'email', 'phone', 'company', 'subject', 'message', 'consent'];

/** A team on the scale plan, its owner with an API token, a published form — through the domain functions. */
export async function seedAccount(
  dbUrl: string,
  dataDir: string,
): Promise<{ teamId: string; formId: string; token: string }> {
  const config = loadConfig({
    DATABASE_URL: dbUrl,
    INTAKE_DATA_DIR: dataDir,
    INTAKE_SECRET_KEY: 'bench',
    LOG_LEVEL: 'silent',
  });
  const rt = await boot(config, { http: false, worker: false, services: false, log: pino({ level: 'silent' }) });
  try {
    const team = await createTeam(rt.ctx, { name: 'Bench team', plan: 'scale' });
    const { user } = await addMember(rt.ctx, {
      email: 'owner@bench.example',
      name: 'Bench Owner',
      teamId: team.id,
      role: 'owner',
    });
    for (const name of ['Ana', 'Ben', 'Chloe'])
      await addMember(rt.ctx, { email: `${name.toLowerCase()}@bench.example`, name, teamId: team.id, role: 'editor' });
    const { token } = await issueToken(rt.ctx, { teamId: team.id, userId: user.id, name: 'bench' });
    const caller: Caller = { userId: user.id, teamId: team.id, role: 'owner', tokenId: 'bench', abilities: [] };
    const form = await createForm(rt.ctx, caller, { name: 'Contact us', notification_emails: [] });
    await publishForm(rt.ctx, caller, form.id);
    return { teamId: team.id, formId: form.id, token };
  } finally {
    await rt.close();
  }
}

const SQL_ARRAY = (xs: string[]) => `array[${xs.map((x) => `'${x.replace(/'/g, "''")}'`).join(', ')}]`;
const CATEGORIES = ['support', 'sales', 'partnership', 'bug-report', 'feature-request', 'feedback', 'other'];

/**
 * `rows` submissions for the form, oldest first (as they would have arrived), over the past year.
 * The per-row folder-count trigger is switched off for the bulk insert and the counters are written
 * from the inserted rows in the same transaction, so they match exactly what the trigger would keep.
 */
export async function seedSubmissions(
  c: pg.Client,
  a: { teamId: string; formId: string; rows: number },
): Promise<{ seconds: number }> {
  const started = performance.now();
  const chunk = 100_000;
  const stepUs = Math.floor((365 * 24 * 3600 * 1e6) / a.rows);
  // Triage as a team that works its inbox would leave it: a fifth of the submissions assigned among the members.
  const members = (
    await c.query<{ user_id: string }>('select user_id from memberships where team_id = $1 order by created_at', [
      a.teamId,
    ])
  ).rows.map((r) => r.user_id);
  await c.query('begin');
  await c.query('alter table submissions disable trigger user');
  for (let from = 1; from <= a.rows; from += chunk) {
    checkInterrupted();
    const to = Math.min(a.rows, from + chunk - 1);
    await c.query(
      `insert into submissions (id, team_id, form_id, status, spam_reason, category, ai_moderation, payload, metadata, received_at, updated_at,
                                tags, stage, assignee_id)
       select 'subm_' || lpad(upper(to_hex(i)), 10, '0') || upper(substr(md5(i::text), 1, 16)), $1, $2,
              case when h % 25 = 0 then 'spam' when h % 97 = 1 then 'received' else 'processed' end,
              case when h % 25 = 0 then (array['honeypot_filled', 'ai_moderation', 'rule:keyword'])[1 + h % 3] end,
              case when h % 97 <> 1 then (${SQL_ARRAY(CATEGORIES)})[1 + (h / 7) % ${CATEGORIES.length}] end,
              case when h % 97 <> 1 then jsonb_build_object('score', round(((h / 11) % 100) / 100.0, 2),
                     'verdict', case when h % 25 = 0 then 'spam' else 'clean' end, 'reasons', '[]'::jsonb, 'provider', 'local') end,
              jsonb_build_object(
                'name', f || ' ' || l,
                'email', lower(f || '.' || l || '.' || i || '@example.com'),
                'phone', '+1 555 ' || (1000 + h % 9000),
                'company', (${SQL_ARRAY(COMPANIES)})[1 + (h / 13) % ${COMPANIES.length}],
                'subject', (${SQL_ARRAY(SUBJECTS)})[1 + (h / 17) % ${SUBJECTS.length}],
                'message', array_to_string(array[s[1 + (h / 19) % 8], s[1 + (h / 23) % 8], case when h % 3 > 0 then s[1 + (h / 29) % 8] end], ' '),
                'consent', 'yes'),
              jsonb_build_object('ip_hash', substr(md5('ip' || (h % 5000)), 1, 32), 'content_type', 'urlencoded',
                'user_agent', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
                'referrer', 'https://www.example.com/contact'),
              ts, ts,
              case when h % 50 = 0 then '{vip}' when h % 50 = 1 then '{vip,follow-up}' when h % 10 = 5 then '{follow-up}'
                   when h % 100 = 7 then '{partner:acme}' else '{}' end::text[],
              case when ts < now() - interval '14 days' and h % 10 < 8 then 'done' when h % 20 = 3 then 'in_progress'
                   else 'new' end,
              case when h % 5 = 0 then ($6::text[])[1 + (h / 5) % cardinality($6::text[])] end
         from (select i, h, ${SQL_ARRAY(SENTENCES)} as s,
                      (${SQL_ARRAY(FIRST)})[1 + h % ${FIRST.length}] as f, (${SQL_ARRAY(LAST)})[1 + (h / 3) % ${LAST.length}] as l,
                      now() - interval '365 days' + make_interval(secs => (i::float8 * $3 + h % 1000000) / 1e6) as ts
                 from (select i, (i::bigint * 2654435761) % 4294967296 as h from generate_series($4::int, $5::int) i) g) x`,
      [a.teamId, a.formId, stepUs, from, to, members],
    );
    log(`seeded ${to.toLocaleString('en')} / ${a.rows.toLocaleString('en')} submissions`);
  }
  // What the triggers would have counted, compacted: live submissions per folder and day (one shard each).
  await c.query(
    `insert into form_folder_counts (team_id, form_id, folder, day, shard, n)
     select team_id, form_id, case when status = 'spam' then 'spam' else 'inbox' end, (received_at at time zone 'UTC')::date, 0, count(*)
       from submissions where form_id = $1 group by 1, 2, 3, 4
     on conflict (form_id, folder, day, shard, team_id) do update set n = form_folder_counts.n + excluded.n`,
    [a.formId],
  );
  await c.query('alter table submissions enable trigger user');
  // What the search trigger would have kept (processed and spam rows are searchable; received ones not yet).
  log('computing the search column');
  await c.query(
    `update submissions set search = submission_search(payload, metadata) where form_id = $1 and status <> 'received'`,
    [a.formId],
  );
  // 0.5 % of the submissions have an uploaded file (the export links them, the list shows them).
  await c.query(
    `insert into submission_files (id, team_id, form_id, submission_id, field, filename, content_type, size_bytes, storage_key, created_at)
     select 'file_' || substr(s.id, 6), s.team_id, s.form_id, s.id, 'attachment', 'brief.pdf', 'application/pdf', 48213,
            'teams/' || s.team_id || '/forms/' || s.form_id || '/' || s.id || '/file_' || substr(s.id, 6), s.received_at
       from submissions s where s.form_id = $1 and ('x' || substr(md5(s.id), 1, 8))::bit(32)::int % 200 = 0`,
    [a.formId],
  );
  await c.query(
    `insert into form_fields (team_id, form_id, name, ordinal)
     select $3, $1, name, ord from unnest($2::text[]) with ordinality as f(name, ord) on conflict do nothing`,
    [a.formId, FIELDS, a.teamId],
  );
  await c.query('commit');
  log('vacuum analyze (visibility map for index-only scans, fresh statistics)');
  await c.query('vacuum (analyze) submissions');
  await c.query('vacuum (analyze) submission_files');
  await c.query('vacuum (analyze) form_folder_counts');
  await c.query('checkpoint');
  return { seconds: round((performance.now() - started) / 1000) };
}
