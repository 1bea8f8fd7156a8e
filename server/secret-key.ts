import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.ts';

/**
 * The server's 32-byte secret (IP hashing, webhook secret encryption): INTAKE_SECRET_KEY when set (any
 * string; hashed to 32 bytes), otherwise one generated once into the data dir for development.
 */
export function loadSecretKey(config: Config): Buffer {
  if (config.secretKey) return createHash('sha256').update(config.secretKey).digest();
  const file = path.join(config.dataDir, 'secret-key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(config.dataDir, { recursive: true });
    try {
      fs.writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // another process created it first
    }
  }
  return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
}
