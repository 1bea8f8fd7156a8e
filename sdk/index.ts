import { initClient, type ApiFetcher, type SuccessfulHttpStatusCode } from '@ts-rest/core';
import type { z } from 'zod';
import * as abilities from '../contract/abilities.ts';
import type * as account from '../contract/account.ts';
import type * as billing from '../contract/billing.ts';
import type * as common from '../contract/common.ts';
import type * as conditions from '../contract/conditions.ts';
import * as errors from '../contract/errors.ts';
import type * as events from '../contract/events.ts';
import type * as admission from '../contract/form-admission.ts';
import * as features from '../contract/form-features.ts';
import type * as forms from '../contract/forms.ts';
import { contract } from '../contract/index.ts';
import * as insights from '../contract/insights.ts';
import * as jobs from '../contract/jobs.ts';
import type * as rules from '../contract/rules.ts';
import * as submissions from '../contract/submissions.ts';
import type * as tokens from '../contract/tokens.ts';
import * as triage from '../contract/triage.ts';
import * as webhooks from '../contract/webhooks.ts';
import { backoffMs, retryAfterMs, sleep } from './backoff.ts';
import { listenTo, type ListenEvent, type ListenOptions } from './listen.ts';

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

/** One object type however zod built it (a passthrough object is an intersection), printed whole. */
type Plain<T> = T extends object ? { [K in keyof T]: T[K] } : T;
/** What a schema parses to: the type ts-rest gives an answer with this schema. */
const output = <S extends z.ZodTypeAny>() => undefined as unknown as Plain<z.output<S>>;
/** What a schema accepts: the type ts-rest gives a request body with this schema. */
const input = <S extends z.ZodTypeAny>() => undefined as unknown as z.input<S>;
/** A constant with its literal type, printed into the declarations. */
const constant = <const T>(value: T): T => value;

/**
 * The named types, inferred from the contract's schemas as ts-rest infers each method's arguments and answers
 * (so `const f: Form = (await client.ok.createForm(…)).data` holds), and printed whole into the published
 * declarations: a program using the SDK type-checks plain object types, not the contract's zod schemas.
 * Never called; only its type is read.
 */
function _namedTypes() {
  return {
    Ability: output<typeof abilities.Ability>(),
    Role: output<typeof abilities.Role>(),
    Me: output<typeof account.Me>(),
    Form: output<typeof forms.Form>(),
    FormSettings: output<typeof forms.FormSettings>(),
    FormField: output<typeof forms.FormField>(),
    CreateFormBody: input<typeof forms.CreateFormBody>(),
    UpdateFormBody: input<typeof forms.UpdateFormBody>(),
    SchemaField: output<typeof features.SchemaFieldView>(),
    Captcha: output<typeof features.Captcha>(),
    Autoresponder: output<typeof features.Autoresponder>(),
    Autoresponse: output<typeof features.Autoresponse>(),
    NotificationRecipient: output<typeof features.NotificationRecipient>(),
    SuggestedSchema: output<typeof features.SuggestedSchema>(),
    FieldErrorsBody: output<typeof features.FieldErrorsBody>(),
    UniqueRule: input<typeof admission.UniqueRule>(),
    FormStatus: output<typeof admission.FormStatus>(),
    FormClosedBody: output<typeof admission.FormClosedBody>(),
    DuplicateSubmissionBody: output<typeof admission.DuplicateSubmissionBody>(),
    Submission: output<typeof submissions.SubmissionListItem>(),
    SubmissionDetail: output<typeof submissions.SubmissionDetail>(),
    SubmissionFile: output<typeof submissions.SubmissionFile>(),
    SubmissionStatus: output<typeof submissions.SubmissionStatus>(),
    ExportedSubmission: output<typeof submissions.ExportedSubmission>(),
    CreateSubmissionBody: input<typeof submissions.CreateSubmissionBody>(),
    UpdateSubmissionBody: input<typeof submissions.UpdateSubmissionBody>(),
    BulkBody: input<typeof submissions.BulkBody>(),
    BulkResult: output<typeof submissions.BulkResult>(),
    Stage: input<typeof triage.Stage>(),
    StageCount: output<typeof triage.StageCount>(),
    TagCount: output<typeof triage.TagCount>(),
    Member: output<typeof triage.Member>(),
    Actor: output<typeof triage.Actor>(),
    Note: output<typeof triage.Note>(),
    ActivityEntry: output<typeof triage.ActivityEntry>(),
    CreateNoteBody: input<typeof triage.CreateNoteBody>(),
    TriageChanges: output<typeof triage.TriageChanges>(),
    Rule: output<typeof rules.Rule>(),
    RuleAction: output<typeof rules.RuleAction>(),
    RuleWhen: output<typeof rules.RuleWhen>(),
    RuleApplied: output<typeof rules.RuleApplied>(),
    CreateRuleBody: input<typeof rules.CreateRuleBody>(),
    UpdateRuleBody: input<typeof rules.UpdateRuleBody>(),
    TestRulesBody: input<typeof rules.TestRulesBody>(),
    TestRulesResult: output<typeof rules.TestRulesResult>(),
    Condition: output<typeof conditions.Condition>(),
    Webhook: output<typeof webhooks.Webhook>(),
    Delivery: output<typeof webhooks.Delivery>(),
    WebhookProvider: output<typeof webhooks.Provider>(),
    WebhookEvent: output<typeof webhooks.WebhookEvent>(),
    DeliveryStatus: output<typeof webhooks.DeliveryStatus>(),
    CreateWebhookBody: input<typeof webhooks.CreateWebhookBody>(),
    UpdateWebhookBody: input<typeof webhooks.UpdateWebhookBody>(),
    ReplayWebhookBody: input<typeof webhooks.ReplayWebhookBody>(),
    SubmissionUpdatedEvent: output<typeof events.SubmissionUpdatedEvent>(),
    StreamedSubmission: output<typeof events.StreamedSubmission>(),
    SubmissionEventBatch: output<typeof events.SubmissionEventBatch>(),
    Insights: output<typeof insights.Insights>(),
    Job: output<typeof jobs.Job>(),
    PlanId: output<typeof billing.PlanId>(),
    BillingTeam: output<typeof billing.BillingTeam>(),
    BillingPlan: output<typeof billing.BillingPlan>(),
    BillingUsage: output<typeof billing.BillingUsage>(),
    BillingSubscription: output<typeof billing.BillingSubscription>(),
    Invoice: output<typeof billing.Invoice>(),
    TokenMetadata: output<typeof tokens.TokenMetadata>(),
    TokenListEntry: output<typeof tokens.TokenListEntry>(),
    CreateTokenBody: input<typeof tokens.CreateTokenBody>(),
    AbilityExceedsCallerBody: output<typeof tokens.AbilityExceedsCallerBody>(),
    ErrorBody: output<typeof common.ErrorBody>(),
    ValidationErrorBody: output<typeof common.ValidationErrorBody>(),
    RateLimitedBody: output<typeof common.RateLimitedBody>(),
  };
}
type Named = ReturnType<typeof _namedTypes>;

/** The closed lists, as const arrays (their element types are the unions below). */
export const ABILITIES = constant(abilities.ABILITIES);
export const ROLES = constant(abilities.ROLES);
export const ERROR_CODES = constant(errors.ERROR_CODES);
export const SCORE_BUCKETS = constant(insights.SCORE_BUCKETS);
export const JOB_TYPES = constant(jobs.JOB_TYPES);
export const CATEGORIES = constant(submissions.CATEGORIES);
export const SUBMISSION_STATUSES = constant(submissions.SUBMISSION_STATUSES);
export const CAPTCHA_PROVIDERS = constant(features.CAPTCHA_PROVIDERS);
export const FIELD_TYPES = constant(features.FIELD_TYPES);
export const UNKNOWN_FIELDS = constant(features.UNKNOWN_FIELDS);
export const DELIVERY_STATUSES = constant(webhooks.DELIVERY_STATUSES);
export const EVENTS = constant(webhooks.EVENTS);
export const PROVIDERS = constant(webhooks.PROVIDERS);
export const DEFAULT_STAGES = constant(triage.DEFAULT_STAGES);
export const MAX_TAGS = constant(triage.MAX_TAGS);

export type Ability = Named['Ability'];
export type Role = Named['Role'];
export type ErrorCode = (typeof ERROR_CODES)[number];
export type Category = (typeof CATEGORIES)[number];
export type FieldType = (typeof FIELD_TYPES)[number];
export type CaptchaProvider = (typeof CAPTCHA_PROVIDERS)[number];
export type Me = Named['Me'];
/** The API's resources, by the names openapi.json gives them (`components.schemas`). */
export type Form = Named['Form'];
export type Submission = Named['Submission'];
export type SubmissionDetail = Named['SubmissionDetail'];
export type Webhook = Named['Webhook'];
export type Delivery = Named['Delivery'];
export type Insights = Named['Insights'];
export type Job = Named['Job'];
/** A token's metadata, as created (`createToken`); `listTokens` answers `TokenListEntry`. */
export type Token = Named['TokenMetadata'];
export type FormSettings = Named['FormSettings'];
export type FormField = Named['FormField'];
export type SchemaField = Named['SchemaField'];
export type Captcha = Named['Captcha'];
export type Autoresponder = Named['Autoresponder'];
export type Autoresponse = Named['Autoresponse'];
export type NotificationRecipient = Named['NotificationRecipient'];
export type SuggestedSchema = Named['SuggestedSchema'];
/** The public endpoint's 422 for a post that breaks the form's field schema. */
export type FieldErrorsBody = Named['FieldErrorsBody'];
export type CreateFormBody = Named['CreateFormBody'];
export type UpdateFormBody = Named['UpdateFormBody'];
export type SubmissionFile = Named['SubmissionFile'];
export type SubmissionStatus = Named['SubmissionStatus'];
export type ExportedSubmission = Named['ExportedSubmission'];
export type UpdateSubmissionBody = Named['UpdateSubmissionBody'];
export type BulkBody = Named['BulkBody'];
export type CreateSubmissionBody = Named['CreateSubmissionBody'];
export type UniqueRule = Named['UniqueRule'];
export type FormStatus = Named['FormStatus'];
export type FormClosedBody = Named['FormClosedBody'];
export type DuplicateSubmissionBody = Named['DuplicateSubmissionBody'];
export type BulkResult = Named['BulkResult'];
export type Stage = Named['Stage'];
export type StageCount = Named['StageCount'];
export type TagCount = Named['TagCount'];
export type Member = Named['Member'];
export type Actor = Named['Actor'];
export type Note = Named['Note'];
export type ActivityEntry = Named['ActivityEntry'];
export type CreateNoteBody = Named['CreateNoteBody'];
export type TriageChanges = Named['TriageChanges'];
export type Rule = Named['Rule'];
export type RuleAction = Named['RuleAction'];
export type RuleWhen = Named['RuleWhen'];
export type RuleApplied = Named['RuleApplied'];
export type Condition = Named['Condition'];
export type CreateRuleBody = Named['CreateRuleBody'];
export type UpdateRuleBody = Named['UpdateRuleBody'];
export type TestRulesBody = Named['TestRulesBody'];
/** The dry run's answer: the rules that fire, their actions, a trace of every condition. */
export type TestRulesResult = Named['TestRulesResult'];
/** The `submission.updated` webhook body. */
export type SubmissionUpdatedEvent = Named['SubmissionUpdatedEvent'];
export type WebhookProvider = Named['WebhookProvider'];
export type WebhookEvent = Named['WebhookEvent'];
export type CreateWebhookBody = Named['CreateWebhookBody'];
export type UpdateWebhookBody = Named['UpdateWebhookBody'];
export type ReplayWebhookBody = Named['ReplayWebhookBody'];
export type DeliveryStatus = Named['DeliveryStatus'];
export type StreamedSubmission = Named['StreamedSubmission'];
export type SubmissionEventBatch = Named['SubmissionEventBatch'];
export type PlanId = Named['PlanId'];
export type BillingTeam = Named['BillingTeam'];
export type BillingPlan = Named['BillingPlan'];
export type BillingUsage = Named['BillingUsage'];
export type BillingSubscription = Named['BillingSubscription'];
export type Invoice = Named['Invoice'];
export type TokenMetadata = Named['TokenMetadata'];
export type TokenListEntry = Named['TokenListEntry'];
export type CreateTokenBody = Named['CreateTokenBody'];
/** `{ error, message, ...extra }` with any code: an IntakeError also carries the SDK's own (`unexpected_response`, `job_failed`). */
export type ErrorBody = Named['ErrorBody'];
export type ValidationErrorBody = Named['ValidationErrorBody'];
export type RateLimitedBody = Named['RateLimitedBody'];
export type AbilityExceedsCallerBody = Named['AbilityExceedsCallerBody'];

/** Every response of an operation as the discriminated union `{ status, body, headers }`. */
export type IntakeResponse<K extends keyof RawClient> = RawClient[K] extends (args: never) => Promise<infer R>
  ? R
  : never;

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
    const res = await fetchImpl(path, { ...fetchOptions, method, headers, body: body ?? null });
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
