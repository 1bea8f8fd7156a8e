/**
 * Insights benchmark (issue #10): `node bench/insights.ts [--submissions 10000] [--forms 5] [--rounds 3]`.
 *
 * Seeds one team with N processed submissions in the last full week (and N/2 the week before) spread over
 * F forms — realistic contact-form payloads from 60 message templates, 8 % spam — then runs the generation
 * job's domain function (figures from SQL, local provider themes and summary, rows, event deliveries and
 * the digest job in one transaction) R times and reports the median wall time.
 * Target: done in seconds (< 5 s) with the local provider on 10,000 submissions.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { loadConfig } from '../server/config.ts';
import type { Caller } from '../server/domain/accounts/caller.ts';
import { createForm } from '../server/domain/forms/forms.ts';
import { generateInsights, lastFullWeek } from '../server/domain/insights/insights.ts';
import { createTeam } from '../server/domain/accounts/teams.ts';
import { addMember } from '../server/domain/accounts/users.ts';
import { boot } from '../server/main.ts';
import { cleanupAll, installSignalHandlers } from './lib/cleanup.ts';
import { scratchDir, startDatabase, startStorage } from './lib/infra.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TARGET_MS = 5000;
const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);

const { values: opts } = parseArgs({
  options: {
    submissions: { type: 'string', default: '10000' },
    forms: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    'no-save': { type: 'boolean', default: false },
  },
});
const N = Number(opts.submissions);
const FORMS = Number(opts.forms);
const ROUNDS = Number(opts.rounds);

const SUBJECTS = [
  'a quote for the enterprise plan',
  'the password reset e-mail',
  'an invoice for last month',
  'the CSV export',
  'a partnership',
  'the mobile app',
  'our API integration',
  'the annual billing discount',
  'a broken upload form',
  'the onboarding call',
  'GDPR and data retention',
  'single sign-on',
];
const FRAMES = [
  'Hello, I have a question about {s}.',
  'Could you help with {s}? It matters for our team.',
  'We are evaluating you and need details on {s}.',
  'Problem with {s} since yesterday, please advise.',
  'Thanks for the quick answer about {s}!',
];

async function main() {
  installSignalHandlers();
  const dir = scratchDir('intake-bench-insights-');
  const db = await startDatabase(dir, { pgStats: false, log });
  const storageUrl = await startStorage(dir, 'intake-bench');
  const config = loadConfig({
    PATH: process.env.PATH,
    DATABASE_URL: db.url,
    STORAGE_URL: storageUrl,
    STORAGE_BUCKET: 'intake-bench',
    INTAKE_DATA_DIR: dir,
    INTAKE_SECRET_KEY: 'bench',
  });
  const rt = await boot(config, { http: false, worker: false, services: true, log: pino({ level: 'silent' }) });
  const team = await createTeam(rt.ctx, { name: 'Bench team', plan: 'scale' });
  const { user } = await addMember(rt.ctx, {
    email: 'owner@bench.example',
    name: 'Bench Owner',
    teamId: team.id,
    role: 'owner',
  });
  const caller: Caller = { userId: user.id, teamId: team.id, role: 'owner', tokenId: 'bench', abilities: [] };
  const forms: string[] = [];
  for (let i = 0; i < FORMS; i += 1)
    forms.push((await createForm(rt.ctx, caller, { name: `Form ${i + 1}`, notification_emails: [] })).id);

  const now = new Date();
  const week = lastFullWeek(now);
  const texts = SUBJECTS.flatMap((s) => FRAMES.map((f) => f.replace('{s}', s)));
  log(`seeding ${N} submissions this week and ${N / 2} the week before over ${FORMS} forms`);
  const seed = async (count: number, from: Date) => {
    await rt.ctx.db.query(
      `insert into submissions (id, team_id, form_id, status, spam_reason, category, ai_moderation, payload, received_at)
       select 'subm_' || lpad(to_hex(g::bigint + $6::bigint), 26, '0'), $1, ($2::text[])[1 + g % $7], case when g % 12 = 0 then 'spam' else 'processed' end,
              case when g % 12 = 0 then (array['honeypot_filled', 'ai_moderation', 'rate_limited'])[1 + g % 3] end,
              (array['sales', 'support', 'feedback', 'partnership', 'bug-report'])[1 + g % 5],
              jsonb_build_object('score', (g % 100) / 100.0, 'verdict', 'clean', 'reasons', '[]'::jsonb, 'provider', 'local'),
              jsonb_build_object('name', 'Person ' || g, 'email', 'p' || g || '@example.com', 'message', ($3::text[])[1 + g % $8] || ' Ref ' || g),
              $4::timestamptz + (g % 604800) * interval '1 second'
         from generate_series(1, $5::int) g`,
      [team.id, forms, texts, from, count, from.getTime() / 1000, FORMS, texts.length],
    );
  };
  await seed(N, week.start);
  await seed(N / 2, week.priorStart);
  await rt.ctx.db.query('vacuum analyze submissions');

  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r += 1) {
    const started = performance.now();
    await generateInsights(rt.ctx, team.id, now);
    times.push(Math.round(performance.now() - started));
    log(`round ${r + 1}: ${times[r]} ms`);
  }
  const { rows } = await rt.ctx.db.query<{ data: { submissions_total: number; themes: unknown[] } }>(
    'select data from insights where team_id = $1 and form_id is null order by generated_at desc limit 1',
    [team.id],
  );
  await rt.close();
  const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
  const report = {
    benchmark: 'insights',
    at: new Date().toISOString(),
    submissions: N,
    forms: FORMS,
    roundsMs: times,
    medianMs: median,
    checked: { submissions_total: rows[0]?.data.submissions_total, themes: rows[0]?.data.themes.length },
    targetMs: TARGET_MS,
    met: median < TARGET_MS && rows[0]?.data.submissions_total === N,
  };
  console.log(JSON.stringify(report, null, 2));
  if (!opts['no-save']) {
    const file = path.join(ROOT, 'bench', 'results', `insights-${new Date().toISOString().slice(0, 10)}.json`);
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    log(`wrote ${path.relative(ROOT, file)}`);
  }
}

try {
  await main();
} finally {
  await cleanupAll();
}
