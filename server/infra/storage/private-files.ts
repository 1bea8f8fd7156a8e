import fs from 'node:fs';
import path from 'node:path';

/**
 * What Intake writes under its data dir holds submissions and secrets: owner-only whatever the umask. Not a
 * process-wide umask, which would also reach the Postgres binaries copied for the `postgres` user.
 */
export const PRIVATE_FILE = 0o600;
export const PRIVATE_DIR = 0o700;

/** The folder, created if missing, made 0700 (mkdir's mode does not apply to one that already exists). */
export function privateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
  fs.chmodSync(dir, PRIVATE_DIR);
}

/** Files 0600 and folders 0700 throughout `dir` (links left alone), except `skip`, and `dir` itself when `below`. */
export function privateTree(dir: string, opts: { skip?: string[]; below?: boolean } = {}): void {
  const skip = new Set(opts.skip ?? []);
  const stack = [dir];
  while (stack.length) {
    const current = stack.pop()!;
    let entries: fs.Dirent[] = [];
    ignoringGone(() => {
      entries = fs.readdirSync(current, { withFileTypes: true });
      if (!(opts.below && current === dir)) chmodIfLooser(current, PRIVATE_DIR);
    });
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (skip.has(full)) continue;
      if (entry.isDirectory()) stack.push(full);
      else if (entry.isFile()) ignoringGone(() => chmodIfLooser(full, PRIVATE_FILE));
    }
  }
}

/** The folders from `root` down to `dir` (both included) 0700, and the files directly in `dir` 0600. */
export function privatePath(root: string, dir: string): void {
  const rel = path.relative(root, dir);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return;
  ignoringGone(() => {
    let current = root;
    for (const part of ['', ...rel.split(path.sep).filter(Boolean)])
      chmodIfLooser((current = path.join(current, part)), PRIVATE_DIR);
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isFile()) ignoringGone(() => chmodIfLooser(path.join(dir, entry.name), PRIVATE_FILE));
    }
  });
}

/** An entry removed between listing and chmod (an object deleted meanwhile) needs nothing. */
function ignoringGone(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

function chmodIfLooser(file: string, mode: number): void {
  if ((fs.statSync(file).mode & 0o777) === mode) return;
  try {
    fs.chmodSync(file, mode);
  } catch (err) {
    // Another user's file (a data dir shared on purpose): theirs to decide; nothing we wrote.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
  }
}
