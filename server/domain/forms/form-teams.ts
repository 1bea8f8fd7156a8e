import type { AppContext } from '../../context.ts';
import { findTeamOfForm } from '../../infra/db/queries/forms.ts';
import { lastingMemo } from '../shared/lasting-memo.ts';

const teams = lastingMemo<string>(100_000);

/**
 * The team of the form a post names (it names nothing else), so every statement of the post runs on that
 * team's shard; null for an id no form ever had. A form never changes team: each process reads it once.
 */
export async function teamOfForm(ctx: AppContext, formId: string): Promise<string | null> {
  return teams(ctx.db, formId, () => findTeamOfForm(ctx.db, formId));
}
