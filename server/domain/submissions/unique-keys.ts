import type { AppContext } from '../../context.ts';
import type { Tx } from '../../infra/db/database.ts';
import { reclaimUniqueKeys } from '../../infra/db/queries/submission-inserts.ts';
import { heldValuesOf } from '../../infra/db/queries/submissions.ts';
import { uniqueKeys } from '../forms/admission.ts';
import { storedSettings } from '../spam/stored-rules.ts';

/**
 * Clean submissions a person changed (marked not spam, values edited) hold their forms' unique keys again, by
 * their values now, where no other submission holds them: a person's change is never refused.
 */
export async function reclaimKeys(ctx: AppContext, tx: Tx, submissionIds: string[]): Promise<void> {
  if (!submissionIds.length) return;
  for (const row of await heldValuesOf(tx, submissionIds)) {
    const rules = storedSettings(row.settings).unique;
    if (!rules.length && !row.holds) continue;
    await reclaimUniqueKeys(tx, row.form_id, row.id, uniqueKeys(ctx.keys.uniqueValues, rules, row.payload));
  }
}
