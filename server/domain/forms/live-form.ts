import type { AppContext } from '../../context.ts';
import { isLiveForm, liveFormSettings } from '../../infra/db/queries/forms.ts';
import { storedSettings, type StoredSettings } from '../spam/stored-rules.ts';
import type { Caller } from '../accounts/caller.ts';
import { notFound } from '../shared/errors.ts';

/** The form must be a live form of the caller's team: another team's, a trashed or an unknown one is 404. */
export async function requireForm(ctx: AppContext, caller: Caller, formId: string): Promise<void> {
  if (!(await isLiveForm(ctx.db, caller.teamId, formId))) throw notFound('Form');
}

/** The settings of a live form of the caller's team (404 as requireForm). */
export async function requireFormSettings(ctx: AppContext, caller: Caller, formId: string): Promise<StoredSettings> {
  const form = await liveFormSettings(ctx.db, caller.teamId, formId);
  if (!form) throw notFound('Form');
  return storedSettings(form.settings);
}
