import { initClient, type ApiFetcher, type ClientInferResponses, type SuccessfulHttpStatusCode } from '@ts-rest/core';
import type { z } from 'zod';
import type { Ability, Role } from '../contract/abilities.ts';
import type { Me } from '../contract/account.ts';
import type {
  BillingPlan,
  BillingSubscription,
  BillingTeam,
  BillingUsage,
  Invoice,
  PlanId,
} from '../contract/billing.ts';
import type { ErrorBody, RateLimitedBody, ValidationErrorBody } from '../contract/common.ts';
import type {
  StreamedSubmission as StreamedSubmissionSchema,
  SubmissionEventBatch as SubmissionEventBatchSchema,
} from '../contract/events.ts';
import { contract, type Contract } from '../contract/index.ts';
import type { ErrorCode } from '../contract/errors.ts';
import type * as forms from '../contract/forms.ts';
import type * as features from '../contract/form-features.ts';
import type * as rules from '../contract/rules.ts';
import type * as conditions from '../contract/conditions.ts';
import { backoffMs, retryAfterMs, sleep } from './backoff.ts';
import { listenTo, type ListenEvent, type ListenOptions } from './listen.ts';
import type * as admission from '../contract/form-admission.ts';
import type {
  BulkBody,
  BulkResult,
  CreateSubmissionBody,
  ExportedSubmission,
  SubmissionFile,
  SubmissionStatus,
  UpdateSubmissionBody,
} from '../contract/submissions.ts';
import type { AbilityExceedsCallerBody, CreateTokenBody, TokenListEntry, TokenMetadata } from '../contract/tokens.ts';
import type * as triage from '../contract/triage.ts';
import type { SubmissionUpdatedEvent as SubmissionUpdatedEventSchema } from '../contract/events.ts';
import type {
  CreateWebhookBody,
  DeliveryStatus,
  Provider,
  ReplayWebhookBody,
  UpdateWebhookBody,
  WebhookEvent,
} from '../contract/webhooks.ts';
import type { Job } from './openapi-types.ts';

export { contract, type Contract };
export {
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEventBody,
  type WebhookVerificationReason,
} from './webhooks.ts';
export {
  parseEventStream,
  type ListenEvent,
  type ListenOptions,
  type SseMessage,
  type SubmissionCreated,
} from './listen.ts';
export type { Ability, Role, Me, ErrorCode };
/** The closed lists, as const arrays (their element types are the unions above). */
export { ABILITIES, ROLES } from '../contract/abilities.ts';
export { ERROR_CODES } from '../contract/errors.ts';
export { SCORE_BUCKETS } from '../contract/insights.ts';
export { JOB_TYPES } from '../contract/jobs.ts';
export { CATEGORIES, SUBMISSION_STATUSES } from '../contract/submissions.ts';
export { CAPTCHA_PROVIDERS, FIELD_TYPES, UNKNOWN_FIELDS } from '../contract/form-features.ts';
export { DELIVERY_STATUSES, EVENTS, PROVIDERS } from '../contract/webhooks.ts';
export { DEFAULT_STAGES, MAX_TAGS } from '../contract/triage.ts';
export type FormSettings = z.infer<typeof forms.FormSettings>;
export type FormField = z.infer<typeof forms.FormField>;
export type SchemaField = z.infer<typeof features.SchemaFieldView>;
export type FieldType = features.FieldType;
export type CaptchaProvider = features.CaptchaProvider;
export type Captcha = z.infer<typeof features.Captcha>;
export type Autoresponder = z.infer<typeof features.Autoresponder>;
export type Autoresponse = z.infer<typeof features.Autoresponse>;
export type NotificationRecipient = z.infer<typeof features.NotificationRecipient>;
export type SuggestedSchema = z.infer<typeof features.SuggestedSchema>;
/** The public endpoint's 422 for a post that breaks the form's field schema. */
export type FieldErrorsBody = z.infer<typeof features.FieldErrorsBody>;
export type CreateFormBody = z.input<typeof forms.CreateFormBody>;
export type UpdateFormBody = z.input<typeof forms.UpdateFormBody>;
export type SubmissionFile = z.infer<typeof SubmissionFile>;
export type SubmissionStatus = z.infer<typeof SubmissionStatus>;
export type ExportedSubmission = z.infer<typeof ExportedSubmission>;
export type UpdateSubmissionBody = z.input<typeof UpdateSubmissionBody>;
export type BulkBody = z.input<typeof BulkBody>;
export type CreateSubmissionBody = z.input<typeof CreateSubmissionBody>;
export type UniqueRule = z.input<typeof admission.UniqueRule>;
export type FormStatus = z.infer<typeof admission.FormStatus>;
export type FormClosedBody = z.infer<typeof admission.FormClosedBody>;
export type DuplicateSubmissionBody = z.infer<typeof admission.DuplicateSubmissionBody>;
export type BulkResult = z.infer<typeof BulkResult>;
export type Stage = z.input<typeof triage.Stage>;
export type StageCount = z.infer<typeof triage.StageCount>;
export type TagCount = z.infer<typeof triage.TagCount>;
export type Member = z.infer<typeof triage.Member>;
export type Actor = z.infer<typeof triage.Actor>;
export type Note = z.infer<typeof triage.Note>;
export type ActivityEntry = z.infer<typeof triage.ActivityEntry>;
export type CreateNoteBody = z.input<typeof triage.CreateNoteBody>;
export type TriageChanges = z.infer<typeof triage.TriageChanges>;
export type Rule = z.infer<typeof rules.Rule>;
export type RuleAction = z.infer<typeof rules.RuleAction>;
export type RuleWhen = z.infer<typeof rules.RuleWhen>;
export type RuleApplied = z.infer<typeof rules.RuleApplied>;
export type Condition = z.infer<typeof conditions.Condition>;
export type CreateRuleBody = z.input<typeof rules.CreateRuleBody>;
export type UpdateRuleBody = z.input<typeof rules.UpdateRuleBody>;
export type TestRulesBody = z.input<typeof rules.TestRulesBody>;
/** The dry run's answer: the rules that fire, their actions, a trace of every condition. */
export type TestRulesResult = z.infer<typeof rules.TestRulesResult>;
/** The `submission.updated` webhook body. */
export type SubmissionUpdatedEvent = z.infer<typeof SubmissionUpdatedEventSchema>;
export type WebhookProvider = z.infer<typeof Provider>;
export type WebhookEvent = z.infer<typeof WebhookEvent>;
export type CreateWebhookBody = z.input<typeof CreateWebhookBody>;
export type UpdateWebhookBody = z.input<typeof UpdateWebhookBody>;
export type ReplayWebhookBody = z.input<typeof ReplayWebhookBody>;
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;
export type StreamedSubmission = z.infer<typeof StreamedSubmissionSchema>;
export type SubmissionEventBatch = z.infer<typeof SubmissionEventBatchSchema>;
export type Category = (typeof import('../contract/submissions.ts').CATEGORIES)[number];
export type PlanId = z.infer<typeof PlanId>;
export type BillingTeam = z.infer<typeof BillingTeam>;
export type BillingPlan = z.infer<typeof BillingPlan>;
export type BillingUsage = z.infer<typeof BillingUsage>;
export type BillingSubscription = z.infer<typeof BillingSubscription>;
export type Invoice = z.infer<typeof Invoice>;
export type TokenMetadata = z.infer<typeof TokenMetadata>;
export type TokenListEntry = z.infer<typeof TokenListEntry>;
export type CreateTokenBody = z.input<typeof CreateTokenBody>;
/** `{ error, message, ...extra }` with any code: an IntakeError also carries the SDK's own (`unexpected_response`, `job_failed`). */
export type ErrorBody = z.infer<typeof ErrorBody>;
/**
 * The API's resources by the names openapi.json gives them (`components.schemas`), generated into
 * sdk/openapi-types.ts; test/contract/openapi-tools.test.ts typechecks them (strict) and test/sdk/sdk.test.ts checks the file is what openapi.json generates.
 */
export type { Delivery, Form, Insights, Job, Submission, SubmissionDetail, Token, Webhook } from './openapi-types.ts';
export type ValidationErrorBody = z.infer<typeof ValidationErrorBody>;
export type RateLimitedBody = z.infer<typeof RateLimitedBody>;
export type AbilityExceedsCallerBody = z.infer<typeof AbilityExceedsCallerBody>;

/** Every response of an operation as the discriminated union `{ status, body, headers }`. */
export type IntakeResponse<K extends keyof Contract> = ClientInferResponses<Contract[K]>;

/** Error codes whose bodies carry more than `{ error, message }`. */
type DetailedErrorBodies = {
  validation_failed: ValidationErrorBody;
  invalid_json: ValidationErrorBody;
  rate_limited: RateLimitedBody;
  ability_exceeds_caller: AbilityExceedsCallerBody;
};
export type IntakeErrorBody<C extends string> = C extends keyof DetailedErrorBodies
  ? DetailedErrorBodies[C]
  : ErrorBody;

type RawResponse = { status: number; body: unknown; headers: Headers };

/** An error answer from the API (or, with code `unexpected_response`, an answer the contract does not describe). */
export class IntakeError extends Error {
  readonly status: number;
  /** The API's error code (`body.error`), e.g. `not_found`; `error` says the same. */
  readonly code: string;
  readonly error: string;
  readonly body: ErrorBody;
  readonly requestId: string | null;
  readonly headers: Headers;

  constructor(response: RawResponse) {
    const body = isErrorBody(response.body)
      ? response.body
      : { error: 'unexpected_response', message: `Unexpected HTTP ${response.status} response.` };
    super(body.message ?? `HTTP ${response.status}: ${body.error}`);
    this.name = 'IntakeError';
    this.status = response.status;
    this.code = body.error;
    this.error = body.error;
    this.body = body;
    this.requestId = response.headers.get('x-request-id');
    this.headers = response.headers;
  }

  /** Narrows to one error code, typing the body's extra fields (`exceeded`, `details`, `retry_after`). */
  is<C extends string>(code: C): this is IntakeError & { readonly code: C; readonly body: IntakeErrorBody<C> } {
    return this.code === code;
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string';
}

export type SuccessBody<R> = Extract<R, { status: SuccessfulHttpStatusCode }> extends { body: infer B } ? B : never;

/** The body of a 2xx response; any other status throws an IntakeError. */
export async function unwrap<R extends RawResponse>(response: R | Promise<R>): Promise<SuccessBody<R>> {
  const res = await response;
  if (res.status >= 200 && res.status < 300) return res.body as SuccessBody<R>;
  throw new IntakeError(res);
}

async function readBody(res: Response): Promise<unknown> {
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('application/') && type.includes('json')) return res.json();
  if (type.includes('text/')) return res.text();
  return res.blob();
}

/**
 * ts-rest's default fetcher, over the caller's fetch. A status the contract does not declare for the route
 * (a 500, a proxy's 502) throws, so the typed union of statuses a caller switches over stays true.
 */
function fetcher(fetchImpl: typeof fetch): ApiFetcher {
  return async ({ route, path, method, headers, body, fetchOptions }) => {
    const res = await fetchImpl(path, { ...fetchOptions, method, headers, body });
    const response = { status: res.status, body: await readBody(res), headers: res.headers };
    if (!Object.hasOwn(route.responses, res.status)) throw new IntakeError(response);
    return response;
  };
}

type PageMeta = { current_page?: number | null; last_page?: number; next_cursor?: string | null };
type Page<T> = { data: T[]; meta: PageMeta };
type PageQuery = { query?: { page?: number; cursor?: string } };

/**
 * Every item of a paginated list, fetching the next page as the loop advances:
 * `for await (const s of paginate(client.ok.listSubmissions, { params: { form }, query: { per_page: 100 } }))`.
 * Lists with a keyset cursor (submissions, deliveries) are walked by `next_cursor` — constant time per page
 * however deep — and page-numbered lists (forms) by page.
 */
export async function* paginate<F extends (args: never) => Promise<Page<unknown>>>(
  list: F,
  args: NonNullable<Parameters<F>[0]>,
): AsyncGenerator<Awaited<ReturnType<F>>['data'][number], void, undefined> {
  const fetchPage = list as unknown as (args: PageQuery) => ReturnType<F>;
  const first = args as PageQuery;
  let query = { ...first.query };
  for (;;) {
    const body = await fetchPage({ ...first, query });
    yield* body.data;
    const { meta } = body;
    if (meta.next_cursor !== undefined) {
      if (meta.next_cursor === null || !body.data.length) return;
      const { page: _page, ...rest } = query;
      query = { ...rest, cursor: meta.next_cursor };
    } else {
      if (meta.current_page == null || meta.last_page === undefined || meta.current_page >= meta.last_page) return;
      query = { ...query, page: meta.current_page + 1 };
    }
  }
}

export type ClientOptions = {
  /** The server's address, e.g. `https://intake.example.com`; a trailing `/v1` (the spec's base URL) is accepted too. */
  baseUrl: string;
  /** An API token, `intk_…`. */
  token: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /**
   * Retries of idempotent requests (GET, PUT, DELETE) answered 429 or 5xx, or failing to connect: after
   * `Retry-After` when the server sends one (up to `maxDelayMs`), else exponential backoff with full
   * jitter. Default `{ retries: 2, baseDelayMs: 500, maxDelayMs: 30_000 }`; `false` turns it off.
   */
  retry?: RetryOptions | false;
  /** Abort a request (each attempt) after this many milliseconds; default none. */
  timeoutMs?: number;
};

export type RetryOptions = { retries?: number; baseDelayMs?: number; maxDelayMs?: number };

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);

/**
 * The caller's fetch with the client's timeout and retry policy. Non-idempotent requests (POST) are sent
 * once: a retried POST could create twice.
 */
export function resilientFetch(
  fetchImpl: typeof fetch,
  options: { retry?: RetryOptions | false; timeoutMs?: number } = {},
): typeof fetch {
  const policy =
    options.retry === false
      ? { retries: 0, baseDelayMs: 0, maxDelayMs: 0 }
      : { retries: 2, baseDelayMs: 500, maxDelayMs: 30_000, ...options.retry };
  return async (input, init = {}) => {
    const method = (init.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const retries = IDEMPOTENT.has(method) ? policy.retries : 0;
    for (let attempt = 0; ; attempt += 1) {
      const signal = options.timeoutMs
        ? AbortSignal.any([AbortSignal.timeout(options.timeoutMs), ...(init.signal ? [init.signal] : [])])
        : init.signal;
      let res: Response | null = null;
      try {
        res = await fetchImpl(input, { ...init, ...(signal ? { signal } : {}) });
      } catch (err) {
        // A network failure or timeout: retried like a 503, unless the caller aborted.
        if (attempt >= retries || init.signal?.aborted) throw err;
      }
      if (res && !(res.status === 429 || res.status >= 500)) return res;
      if (attempt >= retries) return res!;
      await res?.body?.cancel().catch(() => {});
      await sleep(
        Math.min(
          policy.maxDelayMs,
          retryAfterMs(res?.headers.get('retry-after') ?? null) ?? backoffMs(attempt, policy),
        ),
        init.signal,
      );
    }
  };
}

function initRawClient(options: ClientOptions) {
  return initClient(contract, {
    // Contract paths carry the `/v1` prefix themselves.
    baseUrl: options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, ''),
    baseHeaders: { authorization: `Bearer ${options.token}` },
    api: fetcher(resilientFetch(options.fetch ?? globalThis.fetch, options)),
  });
}

export type RawClient = ReturnType<typeof initRawClient>;

/** The same operations, answering the 2xx body or throwing an IntakeError. */
export type OkClient = {
  [K in keyof RawClient]: RawClient[K] extends (...args: infer A) => Promise<infer R>
    ? (...args: A) => Promise<SuccessBody<R>>
    : never;
};

export type ExportArgs = {
  params: { form: string };
  query?: { format?: 'csv' | 'json'; since?: string; until?: string };
};
export type DownloadArgs = { params: { form: string; submission: string; file: string } };

export type IntakeClient = Omit<RawClient, 'exportSubmissions'> & {
  ok: OkClient;
  /**
   * A form's submissions as a Web `ReadableStream` of bytes (CSV by default, or `format: 'json'`), streamed
   * as the server writes them: pipe it to a file or a response without holding the export in memory.
   * (`client.ok.exportSubmissions` answers the whole body as text instead.)
   */
  exportSubmissions(args: ExportArgs): Promise<ReadableStream<Uint8Array>>;
  /**
   * A submission's uploaded file as a Web `ReadableStream` of its bytes: follows the API's 302 to the signed
   * storage URL (which gets no bearer token: fetch drops it on the cross-origin redirect).
   */
  downloadFile(args: DownloadArgs): Promise<ReadableStream<Uint8Array>>;
  /** Polls `GET /v1/jobs/{id}` until the job succeeds (its final state) or fails (an IntakeError `job_failed`). */
  waitForJob(
    jobId: string,
    options?: { intervalMs?: number; timeoutMs?: number; onProgress?: (job: Job) => void },
  ): Promise<Job>;
  /**
   * A form's new submissions as they are processed (server-sent events), until `signal` aborts:
   * `for await (const e of client.listen(form)) console.log(e.submission.payload)`. Reconnects by itself
   * with the last event id (with backoff) after a dropped connection, so none is lost or repeated; throws
   * an IntakeError when refused for good (401, 403, 404, or the token revoked while listening).
   */
  listen(formId: string, options?: ListenOptions): AsyncGenerator<ListenEvent, void, undefined>;
};

/**
 * A typed client of the Intake API: one method per contract route (`client.getMe()`), answering
 * `{ status, body, headers }` for every status the contract declares; `client.ok.getMe()` answers the body.
 */
export function createClient(options: ClientOptions): IntakeClient {
  const raw = initRawClient(options);
  const call = raw as unknown as Record<string, (args?: unknown) => Promise<RawResponse>>;
  const ok = Object.fromEntries(
    Object.keys(raw).map((key) => [key, (args?: unknown) => unwrap(call[key]!(args))]),
  ) as OkClient;
  const http = resilientFetch(options.fetch ?? globalThis.fetch, options);
  const base = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');

  async function exportSubmissions({ params, query = {} }: ExportArgs) {
    const url = new URL(`${base}/v1/forms/${encodeURIComponent(params.form)}/submissions/export`);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
    const res = await http(url, { headers: { authorization: `Bearer ${options.token}` } });
    if (res.status !== 200 || !res.body)
      throw new IntakeError({ status: res.status, body: await readBody(res), headers: res.headers });
    return res.body as ReadableStream<Uint8Array>;
  }

  async function downloadFile({ params }: DownloadArgs) {
    const path = [params.form, 'submissions', params.submission, 'files', params.file]
      .map(encodeURIComponent)
      .join('/');
    const res = await http(new URL(`${base}/v1/forms/${path}`), {
      headers: { authorization: `Bearer ${options.token}` },
    });
    if (res.status !== 200 || !res.body)
      throw new IntakeError({ status: res.status, body: await readBody(res), headers: res.headers });
    return res.body as ReadableStream<Uint8Array>;
  }

  async function waitForJob(
    jobId: string,
    o: { intervalMs?: number; timeoutMs?: number; onProgress?: (job: Job) => void } = {},
  ) {
    const deadline = Date.now() + (o.timeoutMs ?? 10 * 60_000);
    for (;;) {
      const { data: job } = await ok.getJob({ params: { job_id: jobId } });
      o.onProgress?.(job);
      if (job.status === 'succeeded') return job;
      if (job.status === 'failed') {
        throw new IntakeError({
          status: 200,
          body: {
            error: 'job_failed',
            message: `Job ${jobId} failed: ${job.errors.at(-1)?.message ?? 'no reason given'}`,
          },
          headers: new Headers(),
        });
      }
      if (Date.now() > deadline) {
        throw new IntakeError({
          status: 200,
          body: {
            error: 'job_timeout',
            message: `Job ${jobId} is still ${job.status} after ${o.timeoutMs ?? 600_000} ms`,
          },
          headers: new Headers(),
        });
      }
      await sleep(o.intervalMs ?? 1000);
    }
  }

  function listen(formId: string, listenOptions: ListenOptions = {}) {
    // Its own fetch: the client's timeout and retries are for requests, not for a stream that stays open.
    const transport = {
      url: `${base}/v1/forms/${encodeURIComponent(formId)}/submissions/stream`,
      token: options.token,
      fetch: options.fetch ?? globalThis.fetch,
      error: (response: RawResponse) => new IntakeError(response),
    };
    return listenTo(transport, listenOptions);
  }

  return { ...raw, ok, exportSubmissions, downloadFile, waitForJob, listen };
}
