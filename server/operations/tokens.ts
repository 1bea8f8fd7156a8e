import type { tokensContract } from '../../contract/tokens.ts';
import { createToken, listTokens, revokeToken } from '../domain/accounts/tokens.ts';
import type { OperationsOf } from './types.ts';

export const tokensOperations = {
  listTokens: async (ctx, caller) => ({ status: 200, body: { data: await listTokens(ctx, caller) } }),
  createToken: async (ctx, caller, { body }) => ({ status: 201, body: await createToken(ctx, caller, body) }),
  revokeToken: async (ctx, caller, { params }) => {
    await revokeToken(ctx, caller, params.token);
    return { status: 200, body: { ok: true } };
  },
} satisfies OperationsOf<typeof tokensContract>;
