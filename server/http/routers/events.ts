import { initServer } from '@ts-rest/express';
import { eventsContract } from '../../../contract/events.ts';
import type { AppContext } from '../../context.ts';
import { openSubmissionStream, readSubmissionEvents, type StreamOptions } from '../../domain/submission-stream.ts';
import { eventStreamBody, wantsEventStream } from '../event-stream.ts';
import { callerOf } from '../request-context.ts';

export function eventsRouter(ctx: AppContext) {
  return initServer().router(eventsContract, {
    streamSubmissions: async ({ req, res, params, query, headers }) => {
      const header = headers['last-event-id'];
      const opts: StreamOptions = {
        include: query.include,
        ...(header ? { lastEventId: { value: header, in: 'header' } } : query.last_event_id ? { lastEventId: { value: query.last_event_id, in: 'query' } } : {}),
      };
      if (!wantsEventStream(req)) return { status: 200, body: await readSubmissionEvents(ctx, callerOf(res), params.form, opts) };
      const stream = await openSubmissionStream(ctx, callerOf(res), params.form, opts);
      return { status: 200, body: eventStreamBody(res, stream, ctx.log) as never };
    },
  });
}
