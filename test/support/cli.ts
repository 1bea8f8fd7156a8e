import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, inject } from 'vitest';
import { captureLogs, runProcess, type ProcessResult } from './processes.ts';
import { until } from './until.ts';

/** The `intake` launcher a user runs. */
export const INTAKE = fileURLToPath(new URL('../../cli/intake', import.meta.url));
/** The entry point the launcher runs, for a Node started with flags of the test's own (a resolve hook). */
export const CLI_MAIN = fileURLToPath(new URL('../../cli/main.ts', import.meta.url));

type Env = Record<string, string>;

const shell = (): Env => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: process.env.HOME ?? '/tmp',
  ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
});

/**
 * The shell a command starts from: PATH, HOME and TMPDIR, nothing else of the test runner's environment
 * (its own settings would otherwise reach the command), then `extra`.
 */
export function shellEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...shell(), ...extra };
}

/** A CLI user whose home (and so config file) is `home`; with `as`, API commands use that server and token. */
export function userEnv(home: string, as?: { url: string; token: string }, extra: Env = {}): Env {
  return { ...shell(), HOME: home, ...(as ? { INTAKE_URL: as.url, INTAKE_TOKEN: as.token } : {}), ...extra };
}

/**
 * A server-side command (serve, worker, mcp) on an installation: `where`'s database and data directory (by
 * default the run's), the run's object storage. `extra` holds the caller's own settings.
 */
export function installationEnv(where: { databaseUrl?: string; dataDir?: string } = {}, extra: Env = {}): Env {
  return {
    ...shell(),
    DATABASE_URL: where.databaseUrl ?? inject('databaseUrl'),
    STORAGE_URL: inject('storageUrl'),
    STORAGE_BUCKET: 'intake-test',
    INTAKE_DATA_DIR: where.dataDir ?? inject('scratchDir'),
    INTAKE_BASE_URL: 'http://intake.test',
    ...extra,
  };
}

/** A home directory for the file's CLI users, removed after the file. */
export function cliHome(prefix = 'intake-cli-home-'): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  afterAll(() => fs.rmSync(home, { recursive: true, force: true }));
  return home;
}

const RECORDER = fileURLToPath(new URL('./record-packages.ts', import.meta.url));

/**
 * What makes a command record the packages it loads (record-packages.ts): the Node flags to run CLI_MAIN
 * with, the environment naming its list (a new file in `dir`), and the list as written so far.
 */
export function packageRecorder(dir: string) {
  const file = path.join(dir, `packages-${randomBytes(4).toString('hex')}.txt`);
  return {
    node: ['--no-warnings', '--import', RECORDER],
    env: { RECORD_PACKAGES: file },
    packages: (): string[] => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []),
  };
}

/** `intake <args>` run to completion with no stdin; its logs go to the run's captured logs. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<ProcessResult> {
  return runProcess(INTAKE, args, env, cwd);
}

export type CliProcess = {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** stdout and stderr in the order they came. */
  output(): string;
  stdout(): string;
  stderr(): string;
  exited: Promise<[code: number | null, signal: NodeJS.Signals | null]>;
  /** The address a serving command logged it listens on (LOG_LEVEL info or lower); fails if it exits first. */
  url(timeoutMs?: number): Promise<string>;
  /** SIGKILL, then its exit. */
  kill(): Promise<void>;
};

const LISTENING = /"url":"(http:\/\/[^"]+)","msg":"http listening"/;

/**
 * Long-running `intake` commands (serve, worker, dev, listen) for a test file, killed if still running after
 * each test (`'each'`) or after the file's tests (`'all'`, or after the describe block that made them).
 */
export function cliProcesses(killAfter: 'each' | 'all' = 'all') {
  const running = new Set<CliProcess>();
  const killAll = async () => {
    for (const p of running) await p.kill();
  };
  if (killAfter === 'each') afterEach(killAll);
  else afterAll(killAll);
  return {
    killAll,
    /**
     * `node` runs cli/main.ts with those Node flags instead of the launcher. `output` names the streams that
     * carry what the command prints for its user (processes.ts captureLogs).
     */
    start(
      args: string[],
      env: NodeJS.ProcessEnv,
      opts: { node?: string[]; output?: ('stdout' | 'stderr')[] } = {},
    ): CliProcess {
      const [command, argv] = opts.node ? [process.execPath, [...opts.node, CLI_MAIN, ...args]] : [INTAKE, args];
      const child = spawn(command, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      captureLogs(child, args[0]!, { env, output: opts.output });
      const seen = { output: '', stdout: '', stderr: '' };
      for (const name of ['stdout', 'stderr'] as const) {
        child[name].on('data', (c: Buffer) => {
          seen.output += c.toString();
          seen[name] += c.toString();
        });
      }
      const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
      const p: CliProcess = {
        child,
        output: () => seen.output,
        stdout: () => seen.stdout,
        stderr: () => seen.stderr,
        exited,
        url: (timeoutMs = 30_000) =>
          until(
            `intake ${args[0]} to listen`,
            () => {
              if (child.exitCode !== null)
                throw new Error(`intake ${args[0]} exited ${child.exitCode}:\n${seen.output}`);
              return LISTENING.exec(seen.output)?.[1]?.replace('localhost', '127.0.0.1');
            },
            timeoutMs,
          ),
        async kill() {
          child.kill('SIGKILL');
          await exited;
        },
      };
      running.add(p);
      void exited.then(() => running.delete(p));
      return p;
    },
  };
}
