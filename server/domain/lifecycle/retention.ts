import type { FormSettings } from '../../../contract/forms.ts';
import type { AppContext } from '../../context.ts';
import * as queries from '../../infra/db/queries/lifecycle.ts';
import { storedSettings } from '../spam/stored-rules.ts';
import { deleteRows } from '../submissions/submissions.ts';

/**
 * Retention: each form keeps submissions and spam for its chosen days (null: for ever) within its plan's cap.
 * A daily job deletes what aged out in small batches, each its own transaction, skipping rows others hold.
 */

/** When the daily sweep runs (UTC): the schedule in jobs, and the time next_deletion_at names. */
export const SWEEP_CRON = '15 3 * * *';
const SWEEP_HOUR = 3;
const SWEEP_MINUTE = 15;
const BATCH = 500;
const FORMS_PAGE = 200;
const DAY_MS = 24 * 3600 * 1000;

type Days = number | null;

/** The days in force: the form's choice within the plan's cap (a cap turns "for ever" into the cap). */
export function effectiveDays(days: Days, cap: number | null): Days {
  if (cap === null) return days;
  return days === null ? cap : Math.min(days, cap);
}

/** The first sweep at or after `at`. */
export function nextSweepAt(at: Date): Date {
  const sweep = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate(), SWEEP_HOUR, SWEEP_MINUTE));
  return sweep >= at ? sweep : new Date(sweep.getTime() + DAY_MS);
}

export type RetentionStatus = { submissions_days: Days; spam_days: Days; next_deletion_at: string | null };

/** The retention in force for a form, and the sweep that will next delete some of it. */
export function retentionStatus(facts: queries.RetentionFacts | undefined, now = new Date()): RetentionStatus {
  const retention: FormSettings['retention'] = storedSettings(facts?.settings).retention;
  const submissions = effectiveDays(retention.submissions_days, facts?.cap ?? null);
  const spam = effectiveDays(retention.spam_days, facts?.cap ?? null);
  const due = [
    [facts?.oldest_inbox, submissions],
    [facts?.oldest_spam, spam],
  ]
    .filter((pair): pair is [string, number] => pair[0] != null && pair[1] !== null)
    .map(([oldest, days]) =>
      nextSweepAt(new Date(Math.max(new Date(oldest).getTime() + days * DAY_MS, now.getTime()))),
    );
  const next = due.length ? new Date(Math.min(...due.map((d) => d.getTime()))) : null;
  return { submissions_days: submissions, spam_days: spam, next_deletion_at: next?.toISOString() ?? null };
}

export type SweepResult = { forms: number; submissions: number; files: number; deliveriesRedacted: number };

/** The daily retention sweep (its job runs it; tests call it with a fixed clock). */
export async function sweepRetention(ctx: AppContext, now = new Date()): Promise<SweepResult> {
  const result: SweepResult = { forms: 0, submissions: 0, files: 0, deliveriesRedacted: 0 };
  let after = '';
  for (;;) {
    const forms = await queries.formsAfter(ctx.db, after, FORMS_PAGE);
    for (const form of forms) {
      const retention = storedSettings(form.settings).retention;
      let touched = false;
      for (const [spam, days] of [
        [false, effectiveDays(retention.submissions_days, form.cap)],
        [true, effectiveDays(retention.spam_days, form.cap)],
      ] as const) {
        if (days === null) continue;
        const cutoff = new Date(now.getTime() - days * DAY_MS);
        for (;;) {
          const batch = await ctx.db.transaction(async (tx) => {
            const ids = await queries.lockAged(tx, form.team_id, form.id, spam, cutoff, BATCH);
            const gone = await deleteRows(ctx, tx, form.team_id, ids);
            return { count: ids.length, ...gone };
          });
          result.submissions += batch.count;
          result.files += batch.files;
          result.deliveriesRedacted += batch.deliveriesRedacted;
          touched ||= batch.count > 0;
          if (batch.count < BATCH) break;
        }
      }
      if (touched) result.forms += 1;
    }
    if (forms.length < FORMS_PAGE) return result;
    after = forms.at(-1)!.id;
  }
}
