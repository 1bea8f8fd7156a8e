import type { eventsContract } from '../../contract/events.ts';
import {
  openSubmissionStream,
  readSubmissionEvents,
  type StreamOptions,
  type SubmissionStream,
} from '../domain/submissions/stream.ts';
import type { Operation, OperationInput, OperationResult } from './types.ts';

type Route = (typeof eventsContract)['streamSubmissions'];

/** True when the client asked for server-sent events rather than a JSON answer. */
export function wantsEventStream(accept: string | undefined): boolean {
  return /\btext\/event-stream\b/i.test(accept ?? '');
}

/**
 * The events since a point, as one JSON answer, or — for a client that accepts `text/event-stream` — an
 * open stream of them, which the transport frames (REST: server-sent events).
 */
type StreamOperation = Operation<
  Route,
  OperationInput<Route> & { headers: { accept?: string } },
  OperationResult<Route> | { status: 200; stream: SubmissionStream }
>;

export const eventsOperations: { streamSubmissions: StreamOperation } = {
  streamSubmissions: async (ctx, caller, { params, query, headers }) => {
    const header = headers['last-event-id'];
    const opts: StreamOptions = {
      include: query.include,
      ...(header
        ? { lastEventId: { value: header, in: 'header' } }
        : query.last_event_id
          ? { lastEventId: { value: query.last_event_id, in: 'query' } }
          : {}),
    };
    if (!wantsEventStream(headers.accept))
      return { status: 200, body: await readSubmissionEvents(ctx, caller, params.form, opts) };
    return { status: 200, stream: await openSubmissionStream(ctx, caller, params.form, opts) };
  },
};
