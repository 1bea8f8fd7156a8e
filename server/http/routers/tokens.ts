import { initServer } from '@ts-rest/express';
import { tokensContract } from '../../../contract/tokens.ts';
import type { AppContext } from '../../context.ts';
import { createToken, listTokens, revokeToken } from '../../domain/tokens.ts';
import { callerOf } from '../request-context.ts';

export function tokensRouter(ctx: AppContext) {
  return initServer().router(tokensContract, {
    listTokens: async ({ res }) => ({ status: 200, body: { data: await listTokens(ctx, callerOf(res)) } }),
    createToken: async ({ res, body }) => ({ status: 201, body: await createToken(ctx, callerOf(res), body) }),
    revokeToken: async ({ res, params }) => {
      await revokeToken(ctx, callerOf(res), params.token);
      return { status: 200, body: { ok: true } };
    },
  });
}
