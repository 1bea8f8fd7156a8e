import type { SubmissionStream } from '../../../domain/submissions/stream.ts';
import { eventStreamBody } from '../event-stream.ts';
import type { Framing } from './framing.ts';

/** An open stream of events is served as server-sent events; the JSON answer is the body as it is. */
export const eventsFraming: Record<'streamSubmissions', Framing> = {
  streamSubmissions: (ctx, result, { res }) =>
    result.stream
      ? { status: 200, body: eventStreamBody(res, result.stream as SubmissionStream, ctx.log) }
      : { status: result.status, body: result.body },
};
