import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { Ability, Role } from './abilities.ts';
import { authErrors, Timestamp } from './common.ts';
import { COSTS } from './costs.ts';

const c = initContract();

export const Me = z.object({
  user: z.object({ id: z.string(), email: z.string(), name: z.string(), created_at: Timestamp }),
  team: z.object({ id: z.string(), name: z.string(), plan: z.string(), created_at: Timestamp }),
  role: Role,
  token: z.object({ id: z.string(), name: z.string(), abilities: z.array(Ability) }),
});
export type Me = z.infer<typeof Me>;

export const accountContract = c.router({
  getMe: {
    method: 'GET',
    path: '/v1/me',
    summary: 'The calling user, team, role and token',
    responses: { 200: z.object({ data: Me }), ...authErrors },
    metadata: { ability: null, cost: COSTS.row },
  },
});
