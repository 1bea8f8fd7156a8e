import type { accountContract } from '../../contract/account.ts';
import { getMe } from '../domain/accounts/account.ts';
import type { OperationsOf } from './types.ts';

export const accountOperations = {
  getMe: async (ctx, caller) => ({ status: 200, body: { data: await getMe(ctx, caller) } }),
} satisfies OperationsOf<typeof accountContract>;
