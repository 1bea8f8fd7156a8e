import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterDir } from '../../server/infra/db/embedded-postgres.ts';
import { cliProcesses, runCli, shellEnv, type CliProcess } from '../support/cli.ts';
import type { ProcessResult } from '../support/processes.ts';

/**
 * `intake dev` as a user runs it: its own data dir (under the temp dir, which mkdtemp makes 0700, so as root
 * the cluster takes the temp-dir fallback), no DATABASE_URL or STORAGE_URL, real signals.
 */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'intake-dev-lifecycle-'));
const cluster = clusterDir(dataDir);

const env = shellEnv({ INTAKE_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' });

type Dev = CliProcess;
const processes = cliProcesses();

function startDev(devEnv = env): Dev {
  return processes.start(['dev'], devEnv, { output: ['stdout'] }); // stdout shows the dev token on purpose
}

/** Waits for the banner; answers the URL and token it printed. */
async function ready(dev: Dev, timeoutMs = 60_000): Promise<{ url: string; token: string; created: boolean }> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void dev.exited.then(() => (exited = true));
  while (Date.now() < deadline && !exited) {
    const out = dev.output();
    const url = /Intake is running at (http:\/\/\S+)/.exec(out)?.[1];
    const token = /^ {2}(intk_[0-9A-Za-z]{40})$/m.exec(out)?.[1];
    if (url && token) return { url, token, created: out.includes('Created a dev team') };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`intake dev did not print its URL and token${exited ? ' (it exited)' : ''}:\n${dev.output()}`);
}

async function stop(dev: Dev, signal: NodeJS.Signals) {
  dev.child.kill(signal);
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`intake dev did not exit after ${signal}:\n${dev.output()}`)), 30_000),
  );
  return Promise.race([dev.exited.then(([code, sig]) => ({ code, signal: sig })), timeout]);
}

/** Live (non-zombie) postmasters of this cluster (or another), found by their `-D` argument. */
function postmasters(of = cluster): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state !== 'Z' && args.includes(of)) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

async function me(url: string, token: string) {
  const res = await fetch(`${url}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
  return {
    status: res.status,
    body: (await res.json()) as { data: { team: { id: string; plan: string }; role: string } },
  };
}

function admin(args: string[]): Promise<ProcessResult> {
  return runCli(['admin', ...args], env);
}

/** Local addresses of the TCP sockets listening on `port` (Linux /proc/net/tcp and tcp6). */
function listeningAddresses(port: number): string[] {
  const found: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== '0A') continue; // 0A: LISTEN
      const [hex, portHex] = local.split(':');
      if (parseInt(portHex!, 16) !== port) continue;
      found.push(
        hex!.length === 8
          ? hex!
              .match(/../g)!
              .reverse()
              .map((b) => parseInt(b, 16))
              .join('.')
          : hex === '0'.repeat(32)
            ? '::'
            : hex!,
      );
    }
  }
  return found;
}

afterAll(async () => {
  await processes.killAll();
  for (const pid of postmasters()) process.kill(pid, 'SIGQUIT'); // immediate shutdown of a cluster we left
  for (let i = 0; i < 50 && postmasters().length; i++) await new Promise((r) => setTimeout(r, 100));
  fs.rmSync(dataDir, { recursive: true, force: true });
  for (const leftover of [cluster, `${cluster}.leases`, `${cluster}.lock`])
    fs.rmSync(leftover, { recursive: true, force: true });
});

describe('intake dev', () => {
  it('starts, reuses its data, survives a SIGKILL and stops cleanly on SIGINT', { timeout: 120_000 }, async () => {
    // First start: initdb, migrations, a dev team and an owner token.
    const first = startDev();
    const a = await ready(first);
    expect(a.created).toBe(true);
    expect(a.url).toMatch(/^http:\/\/localhost:\d+$/);
    expect(a.url).not.toBe('http://localhost:0');
    // It prints an owner token: it listens on loopback only (HOST unset).
    expect(listeningAddresses(Number(new URL(a.url).port))).toEqual(['127.0.0.1']);
    const whoami = await me(a.url, a.token);
    expect(whoami.status).toBe(200);
    expect(whoami.body.data).toMatchObject({ role: 'owner', team: { plan: 'team' } });
    expect(fs.readFileSync(path.join(dataDir, 'dev-token'), 'utf8').trim()).toBe(a.token);
    expect(fs.statSync(path.join(dataDir, 'dev-token')).mode & 0o077).toBe(0);

    // Admin commands attach to the running cluster and leave it running.
    const team = await admin(['team', 'create', '--name', 'Attached', '--plan', 'scale', '--json']);
    expect(team.code, team.stderr).toBe(0);
    const teamId = (JSON.parse(team.stdout) as { id: string }).id;
    const user = await admin([
      'user',
      'create',
      '--email',
      'attached@example.test',
      '--name',
      'A',
      '--team',
      teamId,
      '--role',
      'admin',
      '--json',
    ]);
    expect(user.code, user.stderr).toBe(0);
    const userId = (JSON.parse(user.stdout) as { id: string }).id;
    const minted = await admin(['token', 'create', '--team', teamId, '--user', userId, '--name', 'attached', '--json']);
    expect(minted.code, minted.stderr).toBe(0);
    const attachedToken = (JSON.parse(minted.stdout) as { token: string }).token;
    // The dev server sees what the CLI wrote: it is the same database.
    expect((await me(a.url, attachedToken)).body.data).toMatchObject({
      role: 'admin',
      team: { id: teamId, plan: 'scale' },
    });
    expect((await me(a.url, a.token)).status).toBe(200);

    // Ctrl-C: exit 0 and Postgres stopped with it.
    expect(postmasters()).toHaveLength(1);
    expect(await stop(first, 'SIGINT')).toEqual({ code: 0, signal: null });
    expect(postmasters()).toEqual([]);
    expect(fs.existsSync(path.join(cluster, 'postmaster.pid'))).toBe(false);

    // Second start reuses the data: same token, no new team.
    const second = startDev();
    const b = await ready(second);
    expect(b).toMatchObject({ token: a.token, created: false });
    expect((await me(b.url, b.token)).body.data.team.id).toBe(whoami.body.data.team.id);

    // kill -9 of node leaves Postgres running; the next start adopts it.
    const [orphan] = postmasters();
    expect(await stop(second, 'SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    expect(postmasters()).toEqual([orphan]);
    const third = startDev();
    const c = await ready(third);
    expect(c.token).toBe(a.token);
    expect((await me(c.url, c.token)).status).toBe(200);
    expect((await me(c.url, attachedToken)).status).toBe(200);

    // Postgres itself killed too (OOM killer, `kill -9` of everything): the stale lock file is handled.
    expect(await stop(third, 'SIGKILL')).toMatchObject({ signal: 'SIGKILL' });
    for (const pid of postmasters()) process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 50 && postmasters().length; i++) await new Promise((r) => setTimeout(r, 100));
    const fourth = startDev();
    const d = await ready(fourth);
    expect((await me(d.url, d.token)).status).toBe(200);

    expect(await stop(fourth, 'SIGINT')).toEqual({ code: 0, signal: null });
    expect(postmasters()).toEqual([]);
  });

  it(
    'keeps what it writes in the data dir private: files 0600, folders 0700 (e-mails, S3 objects, keys), old ones too',
    { timeout: 120_000 },
    async () => {
      // What an older version left: a readable e-mail and data dir (the latter only when not root: there the
      // cluster's place depends on it — a data dir the postgres user cannot reach holds no cluster).
      if (process.getuid?.() !== 0) fs.chmodSync(dataDir, 0o755);
      fs.mkdirSync(path.join(dataDir, 'mail'), { recursive: true, mode: 0o755 });
      fs.chmodSync(path.join(dataDir, 'mail'), 0o755);
      fs.writeFileSync(path.join(dataDir, 'mail', '0-older.eml'), 'Subject: old\n\nhello\n', { mode: 0o644 });
      fs.chmodSync(path.join(dataDir, 'mail', '0-older.eml'), 0o644);
      const dev = startDev();
      const { url, token } = await ready(dev);
      const api = (p: string, body?: unknown) =>
        fetch(`${url}${p}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body ?? {}),
        });
      const created = await api('/v1/forms', { name: 'Private', notification_emails: ['ops@example.test'] });
      expect(created.status).toBe(201);
      const formId = ((await created.json()) as { data: { id: string } }).data.id;
      expect((await api(`/v1/forms/${formId}/publish`)).status).toBe(200);
      const post = new FormData();
      post.append('email', 'ada@example.com');
      post.append('message', 'A file for you');
      post.append('cv', new Blob(['%PDF-1.7 private']), 'cv.pdf');
      const posted = await fetch(`${url}/f/${formId}`, {
        method: 'POST',
        headers: { accept: 'application/json' },
        body: post,
      });
      expect(posted.status).toBe(201);
      // The worker e-mails it (to a file in development).
      const mails = () =>
        fs.readdirSync(path.join(dataDir, 'mail')).filter((f) => f.endsWith('.eml') && f !== '0-older.eml');
      for (let i = 0; i < 200 && !mails().length; i++) await new Promise((r) => setTimeout(r, 100));
      expect(mails().length).toBeGreaterThan(0);

      // Every file and folder under the data dir but the Postgres cluster (Postgres keeps its own 0700).
      const root = path.resolve(dataDir);
      const clusterInside = cluster.startsWith(root + path.sep);
      const loose: string[] = [];
      const seen = { files: 0, objects: 0 };
      const stack = [root];
      while (stack.length) {
        const dir = stack.pop()!;
        for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
          const full = path.join(dir, entry.name);
          if (full === cluster) continue;
          const mode = fs.lstatSync(full).mode & 0o777;
          if (entry.isDirectory()) {
            if (mode !== 0o700) loose.push(`${path.relative(root, full)}/ ${mode.toString(8)}`);
            stack.push(full);
          } else {
            seen.files += 1;
            if (entry.name.endsWith('._S3rver_object')) seen.objects += 1;
            if (mode !== 0o600) loose.push(`${path.relative(root, full)} ${mode.toString(8)}`);
          }
        }
      }
      expect(loose).toEqual([]);
      expect(seen.objects).toBeGreaterThan(0); // the upload is among them
      expect(fs.existsSync(path.join(root, 'secret-key'))).toBe(true);
      // The data dir itself: 0700 — or, as root with the cluster inside, passable by the postgres user only.
      expect(fs.statSync(root).mode & 0o777).toBe(clusterInside && process.getuid?.() === 0 ? 0o711 : 0o700);
      if (clusterInside) expect(fs.statSync(cluster).mode & 0o077).toBe(0);

      expect(await stop(dev, 'SIGINT')).toEqual({ code: 0, signal: null });
    },
  );

  it.skipIf(process.getuid?.() !== 0)(
    'as root with the cluster inside the data dir: 0711, and the postgres user still reaches its cluster',
    { timeout: 180_000 },
    async () => {
      const own = fs.mkdtempSync(path.join(os.tmpdir(), 'intake-dev-reachable-'));
      fs.chmodSync(own, 0o755); // reachable by the postgres user: the cluster goes inside
      const ownEnv = { ...env, INTAKE_DATA_DIR: own };
      const start = () => startDev(ownEnv);
      try {
        const inside = clusterDir(own);
        expect(inside).toBe(path.join(own, 'postgres'));
        const first = start();
        const a = await ready(first, 120_000);
        expect(fs.statSync(own).mode & 0o777).toBe(0o711);
        expect(
          fs
            .readdirSync(own)
            .every((name) => name === 'postgres' || (fs.statSync(path.join(own, name)).mode & 0o077) === 0),
        ).toBe(true);
        expect(await stop(first, 'SIGINT')).toEqual({ code: 0, signal: null });
        // The next start finds the same cluster where it was (not a new one in the temp dir): same token.
        expect(clusterDir(own)).toBe(inside);
        const second = start();
        const b = await ready(second, 120_000);
        expect(b).toMatchObject({ token: a.token, created: false });
        expect((await me(b.url, b.token)).status).toBe(200);
        expect(await stop(second, 'SIGINT')).toEqual({ code: 0, signal: null });
      } finally {
        await processes.killAll();
        for (const pid of postmasters(path.join(own, 'postgres'))) process.kill(pid, 'SIGQUIT'); // a cluster a failure left
        for (let i = 0; i < 50 && postmasters(path.join(own, 'postgres')).length; i++)
          await new Promise((r) => setTimeout(r, 100));
        fs.rmSync(own, { recursive: true, force: true });
      }
    },
  );
});
