import type { z } from 'zod';
import {
  PROVIDER_CONFIG,
  type CreateWebhookBody,
  type EVENTS,
  type FILTER_OPS,
  type UpdateWebhookBody,
} from '../../../contract/webhooks.ts';
import type { AppContext } from '../../context.ts';
import * as queries from '../../infra/db/queries/webhooks.ts';
import { streamHead } from '../../infra/db/queries/stream-heads.ts';
import { checkWebhookUrl } from '../../infra/outbound/address-guard.ts';
import { encryptSecret, generateSecret, secretHash, secretLast4 } from '../../infra/outbound/signing.ts';
import { requireForm } from '../forms/live-form.ts';
import type { Caller } from '../accounts/caller.ts';
import { startSpamDeliveries } from '../delivery/fan-out.ts';
import { checkRequestSettings, type ContentType, type RequestSettings } from './body-template.ts';
import { notFound, validationFailed, type ErrorDetail } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { iso } from '../shared/timestamps.ts';

/** A form has at most this many webhooks (deleted ones do not count). */
export const WEBHOOKS_PER_FORM = 20;

/** After `rotate_secret`, the previous secret also signs for this long, so receivers can switch over. */
export const ROTATION_OVERLAP_SECONDS = 24 * 3600;

type Provider = keyof typeof PROVIDER_CONFIG;

export function webhookView(r: queries.WebhookRow) {
  return {
    id: r.id,
    form_id: r.form_id,
    label: r.label,
    provider: r.provider as Provider,
    url: r.url,
    active: r.active,
    deactivated_reason: r.deactivated_reason,
    config: r.config,
    events: r.events as Array<(typeof EVENTS)[number]>,
    // A filter saved before the condition grammar may give `exists` a value, which never counted: it is not shown.
    filter: r.filter.map((c) =>
      c.op === 'exists' && c.value !== undefined ? { field: c.field, op: c.op } : c,
    ) as Array<{
      field: string;
      op: (typeof FILTER_OPS)[number];
      value?: string | number | string[];
    }>,
    max_per_second: r.max_per_second,
    body_template: r.body_template,
    content_type: r.content_type as ContentType,
    headers: r.headers,
    secret_last4: r.secret_last4,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    deleted_at: iso(r.deleted_at),
  };
}

/** The provider's config schema decides (unknown keys refused); details point into `config`. */
function checkConfig(provider: Provider, config: Record<string, unknown>): Record<string, string> {
  const parsed = PROVIDER_CONFIG[provider].safeParse(config);
  if (parsed.success) return parsed.data as Record<string, string>;
  const details: ErrorDetail[] = parsed.error.issues.map((i) => ({
    in: 'body',
    path: ['config', ...i.path, ...('keys' in i ? [i.keys.join(',')] : [])].join('.'),
    message: i.message,
  }));
  throw validationFailed(details, `The config is not valid for the ${provider} provider.`);
}

/**
 * The template, content type and extra headers a create or an update leaves (what `input` gives over what
 * `current` has), refused as checkRequestSettings says.
 */
export function requestSettings(
  provider: string,
  current: RequestSettings | null,
  input: Partial<{ body_template: string | null; content_type: ContentType; headers: Record<string, string> }>,
): RequestSettings {
  const next: RequestSettings = {
    body_template: input.body_template !== undefined ? input.body_template : (current?.body_template ?? null),
    content_type: input.content_type ?? current?.content_type ?? 'json',
    headers: input.headers ?? current?.headers ?? {},
  };
  checkRequestSettings(provider, next, input);
  return next;
}

/** HTTPS, no credentials, and (unless INTAKE_ALLOW_PRIVATE_WEBHOOKS) a host that resolves only to public addresses. */
async function checkUrl(ctx: AppContext, url: string): Promise<string> {
  const checked = await checkWebhookUrl(url, { allowPrivate: ctx.config.allowPrivateWebhooks });
  if (!checked.ok)
    throw validationFailed(
      [{ in: 'body', path: 'url', message: `The URL ${checked.reason}.` }],
      `The webhook URL ${checked.reason}.`,
    );
  return url;
}

function newSecret(ctx: AppContext) {
  const secret = generateSecret();
  return {
    secret,
    secret_encrypted: encryptSecret(ctx.keys.webhookSecrets, secret),
    secret_hash: secretHash(secret),
    secret_last4: secretLast4(secret),
  };
}

export async function listWebhooks(ctx: AppContext, caller: Caller, formId: string) {
  await requireForm(ctx, caller, formId);
  return (await queries.listWebhooks(ctx.db, caller.teamId, formId)).map(webhookView);
}

export async function createWebhook(
  ctx: AppContext,
  caller: Caller,
  formId: string,
  input: z.infer<typeof CreateWebhookBody>,
) {
  await requireForm(ctx, caller, formId);
  const config = checkConfig(input.provider, input.config);
  const settings = requestSettings(input.provider, null, input);
  const url = await checkUrl(ctx, input.url);
  const { secret, ...stored } = newSecret(ctx);
  const row = await ctx.db.transaction(async (tx) => {
    // Counted under the form's lock, so concurrent creates cannot pass the limit together.
    if ((await queries.lockFormWebhooks(tx, caller.teamId, formId)) >= WEBHOOKS_PER_FORM) {
      throw validationFailed([], `A form has at most ${WEBHOOKS_PER_FORM} webhooks; delete one first.`);
    }
    if (input.events.includes('submission.spam')) await startSpamDeliveries(ctx, tx);
    return queries.insertWebhook(tx, {
      spam_from: (await streamHead(tx, caller.teamId, formId)).seq,
      id: newId('wh'),
      team_id: caller.teamId,
      form_id: formId,
      label: input.label,
      provider: input.provider,
      url,
      active: input.active,
      config,
      events: [...new Set(input.events)],
      filter: input.filter ?? [],
      max_per_second: input.max_per_second ?? null,
      ...settings,
      ...stored,
    });
  });
  return { data: webhookView(row), secret };
}

/**
 * A webhook of the caller's team, else not found; `formId` when the path names its form; `deleted` also finds
 * a deleted one, whose log stays readable while its scheduled retries run out.
 */
export async function requireWebhook(
  ctx: AppContext,
  caller: Caller,
  id: string,
  opts: { formId?: string; deleted?: boolean } = {},
): Promise<queries.WebhookRow> {
  const row = await queries.findWebhook(ctx.db, caller.teamId, id, opts);
  if (!row) throw notFound('Webhook');
  return row;
}

/** A deleted webhook is still shown (with `deleted_at`). */
export async function getWebhook(ctx: AppContext, caller: Caller, formId: string, id: string) {
  return webhookView(await requireWebhook(ctx, caller, id, { formId, deleted: true }));
}

export async function updateWebhook(
  ctx: AppContext,
  caller: Caller,
  formId: string,
  id: string,
  input: z.infer<typeof UpdateWebhookBody>,
) {
  const current = await requireWebhook(ctx, caller, id, { formId });
  const provider = input.provider ?? (current.provider as Provider);
  // A new provider is checked against the config it will have: the new one, or the current one.
  const config =
    input.config !== undefined || input.provider !== undefined
      ? checkConfig(provider, input.config ?? current.config)
      : undefined;
  requestSettings(provider, { ...current, content_type: current.content_type as ContentType }, input);
  const url = input.url !== undefined ? await checkUrl(ctx, input.url) : undefined;
  const rotated = input.rotate_secret ? newSecret(ctx) : undefined;
  const row = await ctx.db.transaction(async (tx) => {
    if (!(await queries.findWebhook(tx, caller.teamId, id, { formId, lock: true }))) throw notFound('Webhook');
    if ((input.events ?? current.events).includes('submission.spam')) await startSpamDeliveries(ctx, tx);
    return queries.updateWebhook(tx, caller.teamId, id, {
      spamFrom: (await streamHead(tx, caller.teamId, formId)).seq,
      label: input.label,
      url,
      provider: input.provider,
      config,
      events: input.events ? [...new Set(input.events)] : undefined,
      filter: input.filter,
      max_per_second: input.max_per_second,
      body_template: input.body_template,
      content_type: input.content_type,
      headers: input.headers,
      active: input.active,
      rotated: rotated && { ...rotated, previousValidSeconds: ROTATION_OVERLAP_SECONDS },
    });
  });
  return { data: webhookView(row), ...(rotated ? { secret: rotated.secret } : {}) };
}

/**
 * No new deliveries from now on; deliveries already made keep their remaining attempts (the spec: "deliveries
 * already in flight continue"), and the webhook stays readable by id with its log (domain/delivery/log.ts).
 */
export async function deleteWebhook(ctx: AppContext, caller: Caller, formId: string, id: string): Promise<void> {
  await requireWebhook(ctx, caller, id, { formId });
  await queries.deleteWebhook(ctx.db, caller.teamId, id);
}
