import type { Response } from 'express';
import type { Caller } from '../domain/accounts/caller.ts';

/** The caller resolved by the auth middleware; routes run behind it, so it is always there. */
export function callerOf(res: Response): Caller {
  const caller = res.locals.caller as Caller | undefined;
  if (!caller) throw new Error('callerOf() used on a route without authentication');
  return caller;
}
