import { initServer } from '@ts-rest/express';
import { accountContract } from '../../../contract/account.ts';
import type { AppContext } from '../../context.ts';
import { getMe } from '../../domain/account.ts';
import { callerOf } from '../request-context.ts';

export function accountRouter(ctx: AppContext) {
  return initServer().router(accountContract, {
    getMe: async ({ res }) => ({ status: 200, body: { data: await getMe(ctx, callerOf(res)) } }),
  });
}
