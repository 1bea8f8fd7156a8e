import fs from 'node:fs';
import path from 'node:path';
import type { Runtime } from '../server/main.ts';
import { clusterDir } from '../server/db/embedded-postgres.ts';
import { PRIVATE_DIR, privateTree } from '../server/storage/private-files.ts';
import { createTeam, findTeamByName } from '../server/domain/teams.ts';
import { authenticate, issueToken } from '../server/domain/tokens.ts';
import { addMember } from '../server/domain/users.ts';

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
  const team = (await findTeamByName(rt.ctx, 'Dev team')) ?? (await createTeam(rt.ctx, { name: 'Dev team', plan: 'team' }));
  const { user } = await addMember(rt.ctx, { email: 'dev@intake.local', name: 'Dev Owner', teamId: team.id, role: 'owner' });
  const { token } = await issueToken(rt.ctx, { teamId: team.id, userId: user.id, name: 'dev owner token' });
  fs.writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  return { token, created: true };
}

/**
 * The data dir, private: what is in it (mail/, s3/, the secret key, the dev token) is made so by whoever
 * writes it; this pass also covers the rest (the embedded cluster's lease files and password, anything an
 * older version left readable) — all but the cluster, whose modes are Postgres's own (0700, 0600).
 * The data dir itself is 0700, with one exception: as root, the embedded Postgres runs as the `postgres`
 * user, and when its cluster lives inside the data dir that user must still pass through it — 0711 then,
 * which lets no one else list it or read anything in it. Tightening it further would move the cluster
 * (embedded-postgres.ts falls back to the temp dir when the postgres user cannot reach the data dir).
 */
export function privateDataDir(dataDir: string): void {
  const root = path.resolve(dataDir);
  const cluster = clusterDir(root);
  const clusterInside = cluster.startsWith(root + path.sep);
  privateTree(root, { skip: [cluster], below: true });
  fs.chmodSync(root, clusterInside && process.getuid?.() === 0 ? PRIVATE_DIR | 0o011 : PRIVATE_DIR);
}
