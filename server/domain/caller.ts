import type { Ability, Role } from '../../contract/abilities.ts';

/** Who is calling: resolved from the bearer token once per request, passed first to every domain function. */
export type Caller = {
  userId: string;
  teamId: string;
  role: Role;
  tokenId: string;
  abilities: readonly Ability[];
};
