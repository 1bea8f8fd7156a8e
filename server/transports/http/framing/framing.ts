import type { Request, Response } from 'express';
import type { AppContext } from '../../../context.ts';
import type { Result } from '../../../operations/pipeline.ts';

/** How REST answers an operation's result when it is more than a JSON body (headers, a stream). */
export type Framing = (
  ctx: AppContext,
  result: Result,
  http: { req: Request; res: Response },
) => { status: number; body: unknown };
