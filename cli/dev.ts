import fs from 'node:fs';
import path from 'node:path';
import type { Runtime } from '../server/main.ts';
import { createTeam, findTeamByName } from '../server/domain/accounts/teams.ts';
import { authenticate, issueToken } from '../server/domain/accounts/tokens.ts';
import { addMember } from '../server/domain/accounts/users.ts';

/**
 * First `make dev`: a dev team on the `team` plan, an owner and an owner token. The plaintext is kept
 * in the data dir (mode 0600) so every later start can print it again; nothing else stores plaintext.
 */
export async function ensureDevAccount(rt: Runtime): Promise<{ token: string; created: boolean }> {
  const tokenFile = path.join(rt.ctx.config.dataDir, 'dev-token');
  if (fs.existsSync(tokenFile)) {
    const token = fs.readFileSync(tokenFile, 'utf8').trim();
    if (await authenticate(rt.ctx, token)) return { token, created: false };
  }
  const team =
    (await findTeamByName(rt.ctx, 'Dev team')) ?? (await createTeam(rt.ctx, { name: 'Dev team', plan: 'team' }));
  const { user } = await addMember(rt.ctx, {
    email: 'dev@intake.local',
    name: 'Dev Owner',
    teamId: team.id,
    role: 'owner',
  });
  const { token } = await issueToken(rt.ctx, { teamId: team.id, userId: user.id, name: 'dev owner token' });
  fs.writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  return { token, created: true };
}
