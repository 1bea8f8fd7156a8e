import type { Request, Response } from 'express';
import type { AppContext } from '../../../context.ts';
import type { Input, Result } from '../../../operations/invoke.ts';

/** What ts-rest hands a handler: the request's parts, parsed by the route's schemas, and the express pair. */
export type RestArgs = Input & { req: Request; res: Response };

/** How REST answers an operation's result when it is more than a JSON body (headers, a stream). */
export type Framing = (ctx: AppContext, result: Result, args: RestArgs) => { status: number; body: unknown };
