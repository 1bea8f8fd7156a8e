import type { Request, Response } from 'express';
import type { Caller } from '../../domain/accounts/caller.ts';

/** The caller resolved by the auth middleware; routes run behind it, so it is always there. */
export function callerOf(res: Response): Caller {
  const caller = res.locals.caller as Caller | undefined;
  if (!caller) throw new Error('callerOf() used on a route without authentication');
  return caller;
}

/** Aborted when the client goes away before its answer is sent (a request waiting for its turn then leaves the line). */
export function clientSignal(req: Request, res: Response): AbortSignal {
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  if (req.socket.destroyed) gone.abort();
  return gone.signal;
}
