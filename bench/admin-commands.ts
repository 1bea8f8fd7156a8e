/**
 * Admin commands benchmark (issue #26): `node bench/admin-commands.ts [--runs 10] [--no-save]`.
 *
 * Starts `intake dev` as a child process in a scratch data dir, as a developer runs it, then times `cli/intake
 * admin …` processes against it, end to end (spawn to exit, stdout read): each command R times, interleaved.
 * Two setups, each with its own `intake dev`: the embedded default (the admin command attaches to the dev
 * server's running cluster through a lease) and DATABASE_URL (a fresh database on the bench's Postgres, or
 * on $DATABASE_URL's server when set). The floor of any CLI start, `intake --version`, is timed beside them.
 * Target: every admin command finishes in under 1 s (p50; the maximum is reported too).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cleanupAll, installSignalHandlers } from './lib/cleanup.ts';
import { scratchDir, startDatabase } from './lib/infra.ts';
import { startChild, type Child } from './lib/processes.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(ROOT, 'cli', 'intake');
const TARGET_MS = 1000;
const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);

const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    'no-save': { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
});
const RUNS = Number(opts.runs);

type Run = { ms: number; stdout: string };

/** One CLI process, timed from spawn until it has exited and its output is read. */
function timeCli(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const proc = spawn(CLI, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d) => (stdout += d));
    proc.stderr.on('data', (d) => (stderr += d));
    proc.on('error', reject);
    proc.on('close', (code) => {
      const ms = performance.now() - started;
      if (code !== 0) reject(new Error(`intake ${args.join(' ')} exited ${code}: ${stderr.trim()}`));
      else resolve({ ms, stdout });
    });
  });
}

/** Starts `intake dev` and waits for its banner: the URL and the dev owner token it prints. */
async function startDev(env: NodeJS.ProcessEnv): Promise<Child> {
  const dev = startChild('intake dev', CLI, ['dev'], { env, echo: opts.verbose });
  const deadline = Date.now() + 120_000;
  while (!/Intake is running at \S+[\s\S]*\n {2}intk_\S+/.test(dev.output())) {
    if (!dev.alive()) throw new Error(`intake dev exited (${await dev.exited}) before it was ready:\n${dev.output()}`);
    if (Date.now() > deadline) throw new Error(`intake dev was not ready within 120 s:\n${dev.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return dev;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (ms: number) => Math.round(ms);

type Stats = { runs: number; p50Ms: number; maxMs: number; minMs: number };
const stats = (times: number[]): Stats => {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    runs: sorted.length,
    p50Ms: round(percentile(sorted, 50)),
    maxMs: round(sorted.at(-1)!),
    minMs: round(sorted[0]!),
  };
};

/** Times each admin command RUNS times against a running `intake dev` started with `env`. */
async function measure(setup: string, env: NodeJS.ProcessEnv) {
  log(`${setup}: starting intake dev`);
  const dev = await startDev(env);
  const json = async <T>(args: string[]) => JSON.parse((await timeCli([...args, '--json'], env)).stdout) as T;
  const [team] = await json<Array<{ id: string }>>(['admin', 'team', 'list']);
  const [owner] = await json<Array<{ id: string }>>(['admin', 'user', 'list', '--team', team!.id]);

  const commands: Record<string, (i: number) => string[]> = {
    '--version': () => ['--version'],
    'admin team list': () => ['admin', 'team', 'list'],
    'admin team show': () => ['admin', 'team', 'show', team!.id],
    'admin token create': (i) => [
      'admin',
      'token',
      'create',
      '--team',
      team!.id,
      '--user',
      owner!.id,
      '--name',
      `bench ${i}`,
      '--abilities',
      'forms:read',
    ],
    'admin token list': () => ['admin', 'token', 'list', '--team', team!.id],
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
  // Interleaved, so drift in the machine's load falls on every command alike.
  for (let i = 0; i < RUNS; i += 1) {
    for (const [name, args] of Object.entries(commands)) times[name]!.push((await timeCli(args(i), env)).ms);
  }
  // The tokens created are there (each command did its work, not just exit quickly).
  const tokens = await json<unknown[]>(['admin', 'token', 'list', '--team', team!.id]);
  const result = Object.fromEntries(Object.entries(times).map(([name, t]) => [name, stats(t)]));
  for (const [name, s] of Object.entries(result))
    log(`${setup}: ${name.padEnd(20)} p50 ${s.p50Ms} ms, max ${s.maxMs} ms`);

  const stopped = await dev.stop();
  return { commands: result, tokensListed: tokens.length, devExit: stopped };
}

async function main() {
  installSignalHandlers();
  const base = {
    PATH: process.env.PATH,
    HOME: process.env.HOME ?? os.tmpdir(),
    PORT: '0',
    LOG_LEVEL: 'warn',
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
  };
  const loadBefore = os.loadavg();

  const embeddedDir = scratchDir('intake-bench-admin-');
  const embedded = await measure('embedded', { ...base, INTAKE_DATA_DIR: embeddedDir });

  const urlDir = scratchDir('intake-bench-admin-url-');
  const db = await startDatabase(urlDir, { pgStats: false, log });
  const withUrl = await measure('DATABASE_URL', {
    ...base,
    INTAKE_DATA_DIR: path.join(urlDir, 'data'),
    DATABASE_URL: db.url,
  });

  const setups = { embedded, databaseUrl: withUrl };
  const admin = Object.values(setups).flatMap((s) =>
    Object.entries(s.commands)
      .filter(([name]) => name.startsWith('admin'))
      .map(([, st]) => st),
  );
  const report = {
    benchmark: 'admin-commands',
    at: new Date().toISOString(),
    runsPerCommand: RUNS,
    setups,
    worstP50Ms: Math.max(...admin.map((s) => s.p50Ms)),
    worstMaxMs: Math.max(...admin.map((s) => s.maxMs)),
    targetMs: TARGET_MS,
    // Each setup made RUNS tokens, beside the dev owner's.
    met: admin.every((s) => s.p50Ms < TARGET_MS) && Object.values(setups).every((s) => s.tokensListed === RUNS + 1),
    machine: {
      cpus: os.cpus().length,
      loadavgBefore: loadBefore.map((l) => Math.round(l * 100) / 100),
      loadavgAfter: os.loadavg().map((l) => Math.round(l * 100) / 100),
    },
  };
  console.log(JSON.stringify(report, null, 2));
  if (!opts['no-save']) {
    const file = path.join(ROOT, 'bench', 'results', `admin-commands-${new Date().toISOString().slice(0, 10)}.json`);
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    log(`wrote ${path.relative(ROOT, file)}`);
  }
  if (!report.met) process.exitCode = 1;
}

try {
  await main();
} finally {
  await cleanupAll();
}
