import type { erasureContract } from '../../contract/erasure.ts';
import { createErasure, getErasure, previewErasure } from '../domain/lifecycle/erasure.ts';
import type { OperationsOf } from './types.ts';

export const erasureOperations = {
  createErasure: async (ctx, caller, { body }) =>
    body.dry_run
      ? { status: 200, body: { data: await previewErasure(ctx, caller, body) } }
      : { status: 202, body: await createErasure(ctx, caller, body) },
  getErasure: async (ctx, caller, { params }) => ({
    status: 200,
    body: { data: await getErasure(ctx, caller, params.erasure) },
  }),
} satisfies OperationsOf<typeof erasureContract>;
