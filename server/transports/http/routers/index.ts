import type { AppContext } from '../../../context.ts';
import { operations, type RouteKey } from '../../../operations/index.ts';
import { runOperation } from '../../../operations/invoke.ts';
import { callerOf, clientSignal } from '../request-context.ts';
import { eventsFraming } from './events.ts';
import type { Framing, RestArgs } from './framing.ts';
import { submissionsFraming } from './submissions.ts';

const framings: Partial<Record<RouteKey, Framing>> = { ...eventsFraming, ...submissionsFraming };

/**
 * Every route bound to its operation (server/operations). The checks ran as middleware before ts-rest
 * parsed the request (server/transports/http/app.ts): authentication and ability, the body guard, path ids, the rate
 * limit. Most results are the response as they are; `framings` add what only HTTP has.
 */
export function apiHandlers(ctx: AppContext) {
  const handlers: Record<string, (args: RestArgs) => Promise<{ status: number; body: unknown }>> = {};
  for (const key of Object.keys(operations) as RouteKey[]) {
    const frame = framings[key];
    handlers[key] = async (args) => {
      const { params, query, body, headers, req, res } = args;
      const result = await runOperation(ctx, key, callerOf(res), { params, query, body, headers }, clientSignal(req, res));
      return frame ? frame(ctx, result, args) : { status: result.status, body: result.body };
    };
  }
  return handlers;
}
