import type { z } from 'zod';
import { SCORE_BUCKETS, type Insights } from '../../../contract/insights.ts';
import { freeText, type WeekFigures } from '../../infra/ai/provider.ts';
import type { AppContext } from '../../context.ts';
import * as queries from '../../infra/db/queries/insights.ts';
import { generateInsights as generateJob, insightsDigestEmail } from '../../infra/queue/definitions.ts';
import { requireForm } from '../forms/live-form.ts';
import type { Caller } from '../accounts/caller.ts';
import { createTeamEventDeliveries } from '../delivery/fan-out.ts';
import { AppError, notFound, validationFailed } from '../shared/errors.ts';
import { samplePayloads } from '../submissions/payload-samples.ts';
import { INSIGHTS_SAMPLE } from '../../../contract/costs.ts';
import { isId, newId } from '../shared/ids.ts';
import { iso } from '../shared/timestamps.ts';

/**
 * Weekly AI insights (DESIGN.md "Insights", docs/insights.md): the exact figures of the last full
 * Monday–Sunday week (UTC) from SQL, themes and a summary from the AI provider, kept per team and per form.
 */

export type InsightsData = z.infer<typeof Insights>;

/** How long a regeneration locks the team out of another. */
export const REGENERATE_LOCK_SECONDS = 300;

const DAY = 86_400_000;

/** The last full week before `now`: Monday 00:00 UTC to the next Monday (excluded), and the week before it. */
export function lastFullWeek(now: Date): queries.Week {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const sinceMonday = (new Date(today).getUTCDay() + 6) % 7;
  const end = today - sinceMonday * DAY;
  return { start: new Date(end - 7 * DAY), end: new Date(end), priorStart: new Date(end - 14 * DAY) };
}

/** Relative change as a fraction, rounded to 4 places; from a week with none: 1 when there are some now, else 0. */
export function deltaVsPrior(now: number, before: number): number {
  if (before === 0) return now > 0 ? 1 : 0;
  return Math.round(((now - before) / before) * 10_000) / 10_000;
}

async function requireAi(ctx: AppContext, teamId: string): Promise<void> {
  if (!(await queries.teamHasAi(ctx.db, teamId))) {
    throw new AppError(
      'plan_lacks_ai',
      "The team's plan does not include AI features. Upgrade to Pro or above to use AI insights.",
    );
  }
}

/** The latest insights of the caller's team, or of one of its forms; null until first generated. */
export async function getInsights(ctx: AppContext, caller: Caller, formId?: string): Promise<InsightsData | null> {
  await requireAi(ctx, caller.teamId);
  if (formId !== undefined) {
    if (!isId('frm', formId))
      throw validationFailed([{ in: 'query', path: 'form', message: 'Must be a form id (frm_…).' }]);
    await requireForm(ctx, caller, formId);
  }
  const row = await queries.latestInsight(ctx.db, caller.teamId, formId ?? null);
  return row ? (row.data as InsightsData) : null;
}

/**
 * Queues a regeneration (insights of the last full week, digest, event) unless one was queued less than
 * 5 minutes ago: then 409 `already_running` with the seconds left. The lock is a row taken atomically, so
 * it holds across processes; `now` is injectable for tests.
 */
export async function regenerateInsights(
  ctx: AppContext,
  caller: Caller,
  now = new Date(),
): Promise<{ queued_at: string }> {
  await requireAi(ctx, caller.teamId);
  return ctx.db.transaction(async (tx) => {
    const held = await queries.takeRegenerationLock(
      tx,
      caller.teamId,
      now,
      new Date(now.getTime() + REGENERATE_LOCK_SECONDS * 1000),
    );
    if (held) {
      const retryAfter = Math.max(1, Math.ceil((held.getTime() - now.getTime()) / 1000));
      throw new AppError(
        'already_running',
        `Insights were regenerated less than 5 minutes ago; try again in ${retryAfter} s.`,
        { retry_after: retryAfter },
      );
    }
    await ctx.queue.send(generateJob, { teamId: caller.teamId, at: now.toISOString() }, { tx });
    return { queued_at: now.toISOString() };
  });
}

/** Monday's schedule: a generation for every team whose plan has AI (one per team and week). */
export async function queueWeeklyInsights(ctx: AppContext, now = new Date()): Promise<number> {
  const teams = await queries.aiTeamIds(ctx.db);
  const week = lastFullWeek(now).start.toISOString();
  // Keyed by team and week: a retry of this job, or a second scheduler, queues nothing more.
  for (const teamId of teams) {
    await ctx.queue.send(
      generateJob,
      { teamId, at: now.toISOString() },
      { singletonKey: `${teamId}:${week}`, singletonSeconds: 7 * 86_400 },
    );
  }
  return teams.length;
}

/** One scope's counts (the team's rows come from the grouping set without form_id, so theirs is null), most frequent first. */
const byCount = <K extends string>(rows: queries.CountRow[], formId: string | null, key: K) =>
  rows
    .filter((r) => r.form_id === formId)
    .map((r) => ({ [key]: r.key, count: r.count }) as Record<K, string> & { count: number });

/**
 * Generates the insights of the last full week before `now` for the team and each of its live forms that had
 * submissions in either week, and in one transaction stores them, creates the `ai-insights.regenerated`
 * deliveries and queues the digest e-mail (none for a week without submissions). Returns the team's row id.
 */
export async function generateInsights(ctx: AppContext, teamId: string, now = new Date()): Promise<string | null> {
  if (!(await queries.teamHasAi(ctx.db, teamId))) return null; // the plan changed since it was queued
  const week = lastFullWeek(now);
  const texts: Array<{ form_id: string; text: string }> = [];
  const [totals, counts, , forms] = await Promise.all([
    queries.weekTotals(ctx.db, teamId, week),
    queries.weekCounts(ctx.db, teamId, week),
    samplePayloads(
      (after, rows, bytes) => queries.weekPayloadPage(ctx.db, teamId, week, after, rows, bytes),
      INSIGHTS_SAMPLE,
      (row, payload) => {
        const text = freeText(payload);
        if (text) texts.push({ form_id: row.form_id, text });
      },
    ),
    queries.teamForms(ctx.db, teamId),
  ]);
  const teamTotals = totals.find((r) => r.form_id === null) ?? {
    form_id: null,
    total: 0,
    prior: 0,
    spam: 0,
    b0: 0,
    b1: 0,
    b2: 0,
    b3: 0,
  };
  const formName = new Map(forms.map((f) => [f.id, f.name]));
  const formTotals = totals.filter((r) => r.form_id !== null);
  const changes = formTotals
    .map((r) => ({ name: formName.get(r.form_id!) ?? r.form_id!, total: r.total, prior: r.prior }))
    .sort(
      (a, b) =>
        Math.abs(b.total - b.prior) - Math.abs(a.total - a.prior) || b.total - a.total || (a.name < b.name ? -1 : 1),
    );

  const figures = (r: queries.TotalsRow, scope: WeekFigures['scope']): WeekFigures => ({
    scope,
    period_start: week.start.toISOString(),
    period_end: week.end.toISOString(),
    submissions_total: r.total,
    prior_week_total: r.prior,
    delta_vs_prior_week: deltaVsPrior(r.total, r.prior),
    spam_total: r.spam,
    categories: byCount(counts.categories, r.form_id, 'name'),
    score_distribution: Object.fromEntries(SCORE_BUCKETS.map((b, i) => [b, [r.b0, r.b1, r.b2, r.b3][i]!])),
    spam_reasons: byCount(counts.reasons, r.form_id, 'reason'),
    forms: scope.kind === 'team' ? changes : [],
  });
  const textsOf = (formId: string | null) =>
    texts.filter((p) => formId === null || p.form_id === formId).map((p) => p.text);

  const generatedAt = new Date();
  const scopes: Array<{ formId: string | null; figures: WeekFigures }> = [
    { formId: null, figures: figures(teamTotals, { kind: 'team', name: 'all forms' }) },
    ...formTotals
      .filter((r) => forms.some((f) => f.id === r.form_id && f.live) && (r.total > 0 || r.prior > 0))
      .map((r) => ({ formId: r.form_id, figures: figures(r, { kind: 'form', name: formName.get(r.form_id!)! }) })),
  ];
  const rows: Array<Parameters<typeof queries.insertInsights>[1][number] & { data: InsightsData }> = [];
  for (const s of scopes) {
    const narrative = await ctx.ai.summarize({ ...s.figures, texts: textsOf(s.formId) });
    const f = s.figures;
    const data: InsightsData = {
      generated_at: generatedAt.toISOString(),
      period_start: f.period_start,
      period_end: f.period_end,
      submissions_total: f.submissions_total,
      delta_vs_prior_week: f.delta_vs_prior_week,
      themes: narrative.themes,
      categories: f.categories,
      score_distribution: f.score_distribution as InsightsData['score_distribution'],
      summary_md: narrative.summary_md,
      spam_reasons: f.spam_reasons,
    };
    rows.push({
      id: newId('ins'),
      teamId,
      formId: s.formId,
      periodStart: week.start,
      periodEnd: week.end,
      generatedAt,
      provider: narrative.provider,
      data,
    });
  }

  const team = rows[0]!;
  await ctx.db.transaction(async (tx) => {
    await queries.insertInsights(tx, rows);
    const d = team.data;
    await createTeamEventDeliveries(ctx, tx, teamId, {
      type: 'ai-insights.regenerated',
      team_id: teamId,
      generated_at: d.generated_at,
      period_start: d.period_start,
      period_end: d.period_end,
      submissions_total: d.submissions_total,
      delta_vs_prior_week: d.delta_vs_prior_week,
      summary_md: d.summary_md,
      themes: d.themes,
      categories: d.categories,
    });
    if (d.submissions_total > 0) await ctx.queue.send(insightsDigestEmail, { insightId: team.id }, { tx });
  });
  return team.id;
}

const signed = (fraction: number) => `${fraction >= 0 ? '+' : '−'}${Math.round(Math.abs(fraction) * 100)} %`;

/** The weekly digest of one stored generation, to the team's owners and admins. */
export async function sendInsightsDigest(ctx: AppContext, insightId: string): Promise<'sent' | 'skipped'> {
  const row = await queries.findInsight(ctx.db, insightId);
  if (!row) return 'skipped';
  const readers = await queries.digestReaders(ctx.db, row.team_id);
  if (!readers?.emails.length) return 'skipped';
  const d = row.data as InsightsData;
  const spam = d.spam_reasons.reduce((n, r) => n + r.count, 0);
  const lastDay = iso(new Date(Date.parse(d.period_end) - DAY)).slice(0, 10);
  const text = [
    `${readers.name}: ${d.submissions_total} submissions in the week ${d.period_start.slice(0, 10)} – ${lastDay} (${signed(d.delta_vs_prior_week)} vs the week before).`,
    '',
    `Themes: ${d.themes.map((t) => `${t.label} (${t.count})`).join(', ') || '—'}`,
    `Top categories: ${
      d.categories
        .slice(0, 5)
        .map((c) => `${c.name} (${c.count})`)
        .join(', ') || '—'
    }`,
    `Spam: ${spam} of ${d.submissions_total} (${d.submissions_total ? Math.round((spam / d.submissions_total) * 100) : 0} %)`,
    '',
    'Summary',
    '-------',
    d.summary_md,
    '',
    `Per form, and through the API: GET ${ctx.config.baseUrl}/v1/ai-insights (?form=<form id>)`,
  ].join('\n');
  await ctx.mailer.send({
    to: readers.emails,
    subject: `Weekly insights: ${d.submissions_total} submissions (${signed(d.delta_vs_prior_week)})`,
    text,
  });
  return 'sent';
}

/** A form's last 30 days, for an overview (MCP resource): daily clean and spam counts, categories. */
export async function recentFormStats(ctx: AppContext, caller: Caller, formId: string, days = 30) {
  if (!isId('frm', formId)) throw notFound('Form');
  await requireForm(ctx, caller, formId);
  const { daily, categories } = await queries.recentFormStats(ctx.db, formId, days);
  const clean = daily.reduce((n, d) => n + d.clean, 0);
  const spam = daily.reduce((n, d) => n + d.spam, 0);
  return { form_id: formId, days, total: clean + spam, clean, spam, daily, categories };
}
