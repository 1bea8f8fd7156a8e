import type { z } from 'zod';
import { DEFAULT_STAGES } from '../../../contract/triage.ts';
import type { PreviewWebhookBody, WebhookPreview } from '../../../contract/webhooks.ts';
import type { AppContext } from '../../context.ts';
import { submissionForEvent } from '../../infra/db/queries/webhook-events.ts';
import { webhookTarget } from '../../infra/db/queries/webhooks.ts';
import { renderBody, type Provider, type SubmissionEvent } from '../../infra/outbound/providers.ts';
import type { Caller } from '../accounts/caller.ts';
import { notFound, validationFailed } from '../shared/errors.ts';
import { submissionEvent } from '../submissions/view.ts';
import { TemplateRenderError } from '../templates/templates.ts';
import { templatedBody, type ContentType } from './body-template.ts';
import { requestSettings, requireWebhook } from './webhooks.ts';

/** A made-up submission's event: the payload given, now, from the API. */
function madeUpEvent(formId: string, formName: string, payload: Record<string, unknown>): SubmissionEvent {
  return {
    type: 'submission.created',
    submission_id: 'subm_preview',
    form_id: formId,
    form_name: formName,
    received_at: new Date().toISOString(),
    payload,
    files: [],
    meta: { category: null, score: null, referrer: null, user_agent: null, source: 'api' },
    tags: [],
    stage: DEFAULT_STAGES[0]!.key,
    assignee: null,
  };
}

/** A submission of the form as its event: `submission.spam` for spam, `submission.created` otherwise. */
async function storedEvent(
  ctx: AppContext,
  teamId: string,
  formId: string,
  submissionId: string,
): Promise<SubmissionEvent> {
  const row = await submissionForEvent(ctx.db, teamId, submissionId);
  if (!row || row.form_id !== formId) throw notFound('Submission');
  return submissionEvent(ctx, row, row.status === 'spam' ? 'submission.spam' : 'submission.created');
}

/**
 * The request a submission event would send to the webhook — a stored submission's or a made-up one's —
 * with its template, content type and extra headers, or those given (checked as a save checks them). Nothing
 * is sent, stored or changed. The signature headers and User-Agent, made when a request is sent, are left out.
 */
export async function previewWebhook(
  ctx: AppContext,
  caller: Caller,
  formId: string,
  webhookId: string,
  input: z.infer<typeof PreviewWebhookBody>,
): Promise<z.infer<typeof WebhookPreview>> {
  const hook = await requireWebhook(ctx, caller, webhookId, { formId });
  const settings = requestSettings(hook.provider, { ...hook, content_type: hook.content_type as ContentType }, input);
  const target = await webhookTarget(ctx.db, caller.teamId, webhookId);
  if (!target) throw notFound('Webhook');
  const event = input.payload
    ? madeUpEvent(formId, target.form_name, input.payload)
    : await storedEvent(ctx, caller.teamId, formId, input.submission_id!);

  let templated: ReturnType<typeof templatedBody>;
  try {
    templated = templatedBody({ provider: hook.provider, ...settings }, event);
  } catch (err) {
    if (!(err instanceof TemplateRenderError)) throw err;
    throw validationFailed([{ in: 'body', path: 'body_template', message: err.message }], err.message);
  }
  const contentType = templated?.contentType ?? 'application/json';
  return {
    content_type: contentType,
    headers: { 'content-type': contentType, ...settings.headers },
    body: templated?.body ?? renderBody(hook.provider as Provider, event, hook.config),
  };
}
