import { initServer } from '@ts-rest/express';
import { erasureContract } from '../../../contract/erasure.ts';
import type { AppContext } from '../../context.ts';
import { createErasure, getErasure } from '../../domain/erasure.ts';
import { callerOf } from '../request-context.ts';

export function erasureRouter(ctx: AppContext) {
  return initServer().router(erasureContract, {
    createErasure: async ({ res, body }) => ({ status: 202, body: await createErasure(ctx, callerOf(res), body) }),
    getErasure: async ({ res, params }) => ({ status: 200, body: { data: await getErasure(ctx, callerOf(res), params.erasure) } }),
  });
}
