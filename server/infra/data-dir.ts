import fs from 'node:fs';
import path from 'node:path';
import { clusterDir } from './db/embedded-postgres.ts';
import { PRIVATE_DIR, privateTree } from './storage/private-files.ts';

/**
 * Makes the data dir private, all but the cluster (whose modes are Postgres's own). The dir is 0700, except as
 * root with the cluster inside it: the `postgres` user must pass through, so 0711, which still lets no one
 * else list or read it.
 */
export function privateDataDir(dataDir: string): void {
  const root = path.resolve(dataDir);
  const cluster = clusterDir(root);
  const clusterInside = cluster.startsWith(root + path.sep);
  privateTree(root, { skip: [cluster], below: true });
  fs.chmodSync(root, clusterInside && process.getuid?.() === 0 ? PRIVATE_DIR | 0o011 : PRIVATE_DIR);
}
