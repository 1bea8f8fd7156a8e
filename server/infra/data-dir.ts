import fs from 'node:fs';
import path from 'node:path';
import { clusterDir } from './db/embedded-postgres.ts';
import { PRIVATE_DIR, privateTree } from './storage/private-files.ts';

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
