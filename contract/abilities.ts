import { z } from 'zod';

/** Every ability a token can carry, written `<resource>:<action>`. */
export const ABILITIES = [
  'forms:read',
  'forms:write',
  'submissions:read',
  'submissions:create',
  'submissions:write',
  'submissions:export',
  'webhooks:read',
  'webhooks:write',
  'insights:read',
  'insights:write',
  'tokens:read',
  'tokens:write',
  'billing:read',
] as const;

export const Ability = z.enum(ABILITIES).describe('An ability string, `<resource>:<action>`.');
export type Ability = z.infer<typeof Ability>;

export const ROLES = ['owner', 'admin', 'editor', 'viewer'] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

/** The most a token minted by a member of each role may carry. */
export const ROLE_CEILINGS: Record<Role, readonly Ability[]> = {
  owner: ABILITIES,
  admin: ABILITIES,
  editor: ABILITIES.filter((a) => a !== 'billing:read'),
  viewer: [
    'forms:read',
    'submissions:read',
    'submissions:export',
    'webhooks:read',
    'insights:read',
    'tokens:read',
    'tokens:write',
  ],
};

export function isAbility(value: string): value is Ability {
  return (ABILITIES as readonly string[]).includes(value);
}
