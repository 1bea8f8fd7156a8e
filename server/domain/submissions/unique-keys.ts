import type { AppContext } from '../../context.ts';
import type { Tx } from '../../infra/db/database.ts';
import { findFormSettings } from '../../infra/db/queries/forms.ts';
import { teamOfForm } from '../forms/form-teams.ts';
import { claimKeptKeys, reclaimUniqueKeys } from '../../infra/db/queries/submission-inserts.ts';
import { heldValuesOf, keptValuesPage } from '../../infra/db/queries/submissions.ts';
import { uniqueKeys } from '../forms/admission.ts';
import { storedSettings } from '../spam/stored-rules.ts';

/**
 * Clean submissions a person changed (marked not spam, values edited) hold their forms' unique keys again, by
 * their values now, where no other submission holds them: a person's change is never refused.
 */
export async function reclaimKeys(ctx: AppContext, tx: Tx, teamId: string, submissionIds: string[]): Promise<void> {
  if (!submissionIds.length) return;
  for (const row of await heldValuesOf(tx, teamId, submissionIds)) {
    const rules = storedSettings(row.settings).unique;
    if (!rules.length && !row.holds) continue;
    await reclaimUniqueKeys(tx, row, uniqueKeys(ctx.keys.uniqueValues, row.form_id, rules, row.payload));
  }
}

/** Submissions read (and their keys claimed) per transaction of a backfill. */
const BACKFILL_PAGE = 500;

/**
 * The unique-keys-backfill job: the form's clean submissions, oldest first, claim the keys of its rules as they
 * are when each page is read, held from when each was received (so a window counts from then). The oldest of
 * equal values holds them; a key a post claimed meanwhile stays with it.
 */
export async function backfillUniqueKeys(ctx: AppContext, formId: string): Promise<{ submissions: number }> {
  let after: { cursorTs: string; id: string } | null = null;
  let seen = 0;
  for (;;) {
    const teamId = await teamOfForm(ctx, formId);
    const form = teamId && (await findFormSettings(ctx.db, teamId, formId));
    const rules = form ? storedSettings(form.settings).unique : [];
    if (!form || !rules.length) return { submissions: seen };
    const page = await keptValuesPage(ctx.db, form.team_id, formId, after, BACKFILL_PAGE);
    const claims = page.flatMap((row) =>
      uniqueKeys(ctx.keys.uniqueValues, formId, rules, row.payload).map((k) => ({
        teamId: form.team_id,
        submissionId: row.id,
        key: k.key,
        receivedAt: row.received_at,
      })),
    );
    await claimKeptKeys(ctx.db, claims);
    seen += page.length;
    if (page.length < BACKFILL_PAGE) return { submissions: seen };
    after = { cursorTs: page.at(-1)!.cursor_ts, id: page.at(-1)!.id };
  }
}
