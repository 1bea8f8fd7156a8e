import type { AppRoute, ServerInferRequest, ServerInferResponses } from '@ts-rest/core';
import type { AppContext } from '../context.ts';
import type { Caller } from '../domain/accounts/caller.ts';

/** What an operation is given: the route's path, query, body and headers, already parsed by its own schemas. */
export type OperationInput<R extends AppRoute> = ServerInferRequest<R>;

/** What it answers: one of the route's statuses and its body — data, never an HTTP framing. */
export type OperationResult<R extends AppRoute> = ServerInferResponses<R>;

/** One contract operation, whatever transport called it. */
export type Operation<R extends AppRoute, Input = OperationInput<R>, Result = OperationResult<R>> = (
  ctx: AppContext,
  caller: Caller,
  input: Input,
) => Promise<Result>;

/** The operations of a contract part, one per route key. */
export type OperationsOf<C extends Record<string, AppRoute>> = { [K in keyof C]: Operation<C[K]> };
