import type { Theme } from './themes.ts';
import type { WeekFigures } from './provider.ts';

/**
 * The local provider's summary: markdown written from the exact figures and the extracted themes, in the
 * order a reader looks for them on a Monday — how many, compared with last week, what about, how much spam.
 */

const fmt = (n: number) => n.toLocaleString('en-US');
const pct = (fraction: number) => `${Math.round(Math.abs(fraction) * 100)} %`;
const day = (iso: string) =>
  new Date(iso).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
/** Markdown-safe text: submitted words (themes) and names must not become links, emphasis or headings. */
const md = (s: string) => s.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, '\\$&');

function change(now: number, before: number, delta: number): string {
  if (before === 0) return now === 0 ? 'none the week before either' : 'none the week before';
  if (now === before) return `the same as the week before`;
  return `${delta > 0 ? 'up' : 'down'} ${pct(delta)} on the week before (${fmt(before)})`;
}

export function weekSummary(f: WeekFigures, themes: Theme[]): string {
  const lastDay = new Date(Date.parse(f.period_end) - 86_400_000).toISOString();
  const what = f.scope.kind === 'team' ? 'submissions' : `submissions to ${md(f.scope.name)}`;
  const lines = [
    `**${fmt(f.submissions_total)} ${what}** in the week of ${day(f.period_start)} – ${day(lastDay)}, ${change(f.submissions_total, f.prior_week_total, f.delta_vs_prior_week)}.`,
  ];
  if (f.submissions_total === 0) return `${lines[0]}\n\nNothing to summarise this week.`;

  const clean = f.submissions_total - f.spam_total;
  const bullets: string[] = [];
  if (themes.length)
    bullets.push(
      `**What people wrote about:** ${themes
        .slice(0, 5)
        .map((t) => `${md(t.label)} (${fmt(t.count)})`)
        .join(', ')}`,
    );
  if (f.categories.length)
    bullets.push(
      `**Top categories:** ${f.categories
        .slice(0, 4)
        .map((c) => `${md(c.name)} (${fmt(c.count)})`)
        .join(', ')}`,
    );
  const topReason = f.spam_reasons[0];
  bullets.push(
    f.spam_total === 0
      ? `**Spam:** none, ${fmt(clean)} clean`
      : `**Spam:** ${fmt(f.spam_total)} of ${fmt(f.submissions_total)} (${pct(f.spam_total / f.submissions_total)}), mostly \`${md(topReason!.reason)}\` (${fmt(topReason!.count)}); ${fmt(clean)} clean`,
  );
  const moved = f.forms.filter((x) => x.total !== x.prior).slice(0, 3);
  if (f.scope.kind === 'team' && moved.length) {
    bullets.push(
      `**Forms that changed most:** ${moved.map((x) => `${md(x.name)} ${fmt(x.prior)} → ${fmt(x.total)}`).join(', ')}`,
    );
  }
  const high = (f.score_distribution['0.6-0.85'] ?? 0) + (f.score_distribution['0.85-1.0'] ?? 0);
  if (high) bullets.push(`**Spam scores of 0.6 or more:** ${fmt(high)}`);
  return [lines[0], '', ...bullets.map((b) => `- ${b}`)].join('\n');
}
