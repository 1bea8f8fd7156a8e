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
import { contract, type Contract } from '../contract/index.ts';
import type { AbilityExceedsCallerBody, CreateTokenBody, TokenListEntry, TokenMetadata } from '../contract/tokens.ts';

export { contract, type Contract };
export { verifyWebhook, WebhookVerificationError, type WebhookVerificationReason } from './webhooks.ts';
export type { Ability, Role, Me };
export type PlanId = z.infer<typeof PlanId>;
export type BillingTeam = z.infer<typeof BillingTeam>;
export type BillingPlan = z.infer<typeof BillingPlan>;
export type BillingUsage = z.infer<typeof BillingUsage>;
export type BillingSubscription = z.infer<typeof BillingSubscription>;
export type Invoice = z.infer<typeof Invoice>;
export type TokenMetadata = z.infer<typeof TokenMetadata>;
export type TokenListEntry = z.infer<typeof TokenListEntry>;
export type CreateTokenBody = z.input<typeof CreateTokenBody>;
export type ErrorBody = z.infer<typeof ErrorBody>;
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
export type IntakeErrorBody<C extends string> = C extends keyof DetailedErrorBodies ? DetailedErrorBodies[C] : ErrorBody;

type RawResponse = { status: number; body: unknown; headers: Headers };

/** An error answer from the API (or, with code `unexpected_response`, an answer the contract does not describe). */
export class IntakeError extends Error {
  readonly status: number;
  readonly code: string;
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

type Page<T> = { data: T[]; meta: { current_page: number; last_page: number } };
type PageQuery = { query?: { page?: number } };

/**
 * Every item of a paginated list, fetching page after page as the loop advances:
 * `for await (const form of paginate(client.ok.listForms, { query: { per_page: 100 } }))`.
 */
export async function* paginate<F extends (args: never) => Promise<Page<unknown>>>(
  list: F,
  args: NonNullable<Parameters<F>[0]>,
): AsyncGenerator<Awaited<ReturnType<F>>['data'][number], void, undefined> {
  const fetchPage = list as unknown as (args: PageQuery) => ReturnType<F>;
  const first = args as PageQuery;
  let page = first.query?.page ?? 1;
  for (;;) {
    const body = await fetchPage({ ...first, query: { ...first.query, page } });
    yield* body.data;
    if (body.meta.current_page >= body.meta.last_page) return;
    page = body.meta.current_page + 1;
  }
}

export type ClientOptions = {
  /** The server's address, e.g. `https://intake.example.com`; a trailing `/v1` (the spec's base URL) is accepted too. */
  baseUrl: string;
  /** An API token, `intk_…`. */
  token: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
};

function initRawClient(options: ClientOptions) {
  return initClient(contract, {
    // Contract paths carry the `/v1` prefix themselves.
    baseUrl: options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, ''),
    baseHeaders: { authorization: `Bearer ${options.token}` },
    api: fetcher(options.fetch ?? globalThis.fetch),
  });
}

export type RawClient = ReturnType<typeof initRawClient>;

/** The same operations, answering the 2xx body or throwing an IntakeError. */
export type OkClient = {
  [K in keyof RawClient]: RawClient[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => Promise<SuccessBody<R>> : never;
};

export type IntakeClient = RawClient & { ok: OkClient };

/**
 * A typed client of the Intake API: one method per contract route (`client.getMe()`), answering
 * `{ status, body, headers }` for every status the contract declares; `client.ok.getMe()` answers the body.
 */
export function createClient(options: ClientOptions): IntakeClient {
  const raw = initRawClient(options);
  const call = raw as unknown as Record<string, (args?: unknown) => Promise<RawResponse>>;
  const ok = Object.fromEntries(Object.keys(raw).map((key) => [key, (args?: unknown) => unwrap(call[key]!(args))]));
  return { ...raw, ok: ok as OkClient };
}
