import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { onCleanup } from './cleanup.ts';

export type Child = {
  name: string;
  pid: number;
  /** The last lines the child wrote (stdout and stderr), for error reports. */
  output(): string;
  /** Resolves with the exit code (or signal name) once the child has exited. */
  exited: Promise<string>;
  alive(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<string>;
};

const TAIL_LINES = 60;

/**
 * A server process for the benchmark. It stays in our process group (a terminal's Ctrl-C reaches it as
 * well), and is registered for cleanup so it never outlives the benchmark.
 */
export function startChild(
  name: string,
  file: string,
  args: string[],
  opts: { env: NodeJS.ProcessEnv; cwd?: string; echo?: boolean; onSpawn?: (proc: ChildProcess) => void },
): Child {
  const proc: ChildProcess = spawn(file, args, { env: opts.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  // Before our own listeners: a caller that keeps the logs (the tests' secret scan) sees every byte.
  opts.onSpawn?.(proc);
  const tail: string[] = [];
  const collect = (stream: NodeJS.ReadableStream | null) => {
    let partial = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        tail.push(line);
        if (tail.length > TAIL_LINES) tail.shift();
        if (opts.echo) console.error(`[${name}] ${line}`);
      }
    });
  };
  collect(proc.stdout);
  collect(proc.stderr);
  let exitedFlag = false;
  const exited = new Promise<string>((resolve) => {
    proc.on('exit', (code, signal) => {
      exitedFlag = true;
      resolve(signal ?? String(code));
    });
    proc.on('error', (err) => {
      exitedFlag = true;
      tail.push(`spawn error: ${err.message}`);
      resolve('spawn-error');
    });
  });
  const child: Child = {
    name,
    pid: proc.pid ?? -1,
    output: () => tail.join('\n'),
    exited,
    alive: () => !exitedFlag,
    async stop(graceMs = 15_000) {
      if (exitedFlag) return exited;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      const result = await exited;
      clearTimeout(timer);
      unregister();
      return result;
    },
  };
  const unregister = onCleanup(
    `child ${name}`,
    async () => void (await child.stop()),
    () => {
      if (!exitedFlag) proc.kill('SIGKILL');
    },
  );
  void exited.then(() => unregister());
  return child;
}

export { freePort } from '../../server/infra/db/embedded-postgres.ts';

/** Polls `url` until it answers 2xx; fails early when the child dies, with its output. */
export async function waitForHttp(child: Child, url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!child.alive())
      throw new Error(`${child.name} exited (${await child.exited}) before it was ready:\n${child.output()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${child.name} was not ready at ${url} within ${timeoutMs} ms:\n${child.output()}`);
}

/** CPU time (user + system, ms) a process has used so far, from /proc; null when it is gone. */
export function cpuMs(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields after the command: state(0) ppid(1) … utime(11) stime(12), in clock ticks (100 Hz on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

/** A process and its direct children (a postmaster and its backends). */
export function processTree(rootPid: number): number[] {
  const pids = [rootPid];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === rootPid) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/** Total CPU ms of a postmaster and its backends (backends that exit take their counts with them). */
export function treeCpuMs(rootPid: number): { total: number; byPid: Map<number, number> } {
  const byPid = new Map<number, number>();
  let total = 0;
  for (const pid of processTree(rootPid)) {
    const ms = cpuMs(pid);
    if (ms === null) continue;
    byPid.set(pid, ms);
    total += ms;
  }
  return { total, byPid };
}
