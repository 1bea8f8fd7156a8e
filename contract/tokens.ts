import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { Ability } from './abilities.ts';
import { authErrors, ErrorBody, Instant, OkBody, Timestamp } from './common.ts';
import { COSTS } from './costs.ts';

const c = initContract();

export const TokenMetadata = z.object({
  id: z.string().describe('Prefix `tok_`; the identifier used in paths.'),
  name: z.string(),
  abilities: z.array(Ability),
  created_at: Timestamp,
  last4: z.string().describe('Last four characters of the plaintext token.'),
  expires_at: Timestamp.nullable().describe('When the token stops working (401 from then on); null: it never expires.'),
});
export const TokenListEntry = TokenMetadata.extend({ last_used_at: Timestamp.nullable() });

export const CreateTokenBody = z.object({
  name: z.string().min(1).max(200),
  abilities: z.array(z.string()).describe('Non-empty list of ability strings, each held by the calling token.'),
  expires_at: Instant.nullable()
    .optional()
    .describe(
      'When the token stops working: an ISO 8601 instant (without a zone it is UTC) in the future, at most 10 years ahead. Omitted or null: it never expires.',
    ),
});

export const AbilityExceedsCallerBody = z.object({
  error: z.literal('ability_exceeds_caller'),
  exceeded: z.array(z.string()),
  message: z.string(),
});

export const tokensContract = c.router({
  listTokens: {
    method: 'GET',
    path: '/v1/tokens',
    summary: 'List the tokens minted by the calling user in this team',
    responses: { 200: z.object({ data: z.array(TokenListEntry) }), ...authErrors },
    metadata: { ability: 'tokens:read', cost: COSTS.records },
  },
  createToken: {
    method: 'POST',
    path: '/v1/tokens',
    summary: 'Mint a token; the plaintext is returned once',
    body: CreateTokenBody,
    responses: {
      201: z.object({ data: TokenMetadata, token: z.string().describe('The plaintext token, shown only here.') }),
      ...authErrors,
      402: ErrorBody,
      403: ErrorBody.or(AbilityExceedsCallerBody),
    },
    metadata: { ability: 'tokens:write', cost: COSTS.row },
  },
  revokeToken: {
    method: 'DELETE',
    path: '/v1/tokens/:token',
    summary: 'Revoke a token of the calling user',
    pathParams: z.object({ token: z.string().describe('Token id (`tok_…`), not its plaintext.') }),
    body: c.noBody(),
    responses: { 200: OkBody, ...authErrors },
    metadata: { ability: 'tokens:write', cost: COSTS.row },
  },
});
