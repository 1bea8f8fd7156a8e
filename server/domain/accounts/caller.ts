import type { Ability, Role } from '../../../contract/abilities.ts';
import { AppError } from '../shared/errors.ts';

/** Who is calling: resolved from the bearer token once per request, passed first to every domain function. */
export type Caller = {
  userId: string;
  teamId: string;
  role: Role;
  tokenId: string;
  abilities: readonly Ability[];
};

/** 403 unless the caller's token holds `ability` (null: any valid token). REST and MCP check it here. */
export function requireAbility(caller: Caller, ability: Ability | null): void {
  if (ability && !caller.abilities.includes(ability))
    throw new AppError('forbidden', `This token lacks the "${ability}" ability.`, { required: ability });
}
