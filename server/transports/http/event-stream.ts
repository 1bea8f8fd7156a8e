import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Response } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../../domain/shared/errors.ts';
import type { StreamEvent, SubmissionStream } from '../../domain/submissions/stream.ts';

/** How long an EventSource waits before reconnecting after the stream ends (the SSE `retry:` field). */
const RETRY_MS = 1000;

/** One SSE message; `data` is JSON, so it never holds a line break. */
function frame(e: StreamEvent): string {
  return `id: ${e.id}\nevent: ${e.event}\ndata: ${e.data}\n\n`;
}

/**
 * Serves a stream as `text/event-stream` (the body ts-rest pipes), with backpressure and a heartbeat. It ends
 * when the client goes, the server stops, or the token or form stops working (then with an `error` event).
 */
export function eventStreamBody(res: Response, stream: SubmissionStream, log: Logger): PassThrough {
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Accel-Buffering', 'no'); // nginx and friends: pass events through as they come
  const out = new PassThrough();
  let over = false;

  const finish = (err: unknown) => {
    if (over) return;
    over = true;
    clearInterval(heartbeat);
    if (err instanceof AppError && err.status < 500) {
      out.write(`event: error\ndata: ${JSON.stringify({ ...err.toBody(), status: err.status })}\n\n`);
    } else if (err) {
      log.error({ err }, 'submission stream failed');
    }
    out.end();
    void stream.close();
  };
  const heartbeat = setInterval(() => {
    if (over) return;
    out.write(': heartbeat\n\n');
    stream
      .renew()
      .catch((err: unknown) => log.warn({ err }, 'could not renew a stream lease; retrying at the next heartbeat'));
  }, stream.heartbeatMs);
  stream.ended.addEventListener('abort', () => finish(stream.ended.reason), { once: true });
  res.on('close', () => {
    over = true;
    clearInterval(heartbeat);
    out.destroy();
    void stream.close();
  });

  out.write(`retry: ${RETRY_MS}\n${stream.startId ? `id: ${stream.startId}\n` : ''}\n`);
  void (async () => {
    try {
      while (!over) {
        const events = await stream.next();
        if (over || !events.length) break;
        if (!out.write(events.map(frame).join(''))) await Promise.race([once(out, 'drain'), once(res, 'close')]);
      }
    } catch (err) {
      finish(err);
    }
  })();
  return out;
}
