import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { expect, inject } from 'vitest';
import { envSecretKey, logDir, rememberSecrets } from './secret-scan.ts';

export type ProcessResult = { code: number | null; stdout: string; stderr: string };

let files = 0;

/**
 * A new file for the run's captured logs, named for the test file and what writes it. Everything there is
 * scanned for secrets when the run ends (global-setup.ts).
 */
export function capturedLogFile(what: string): string {
  const dir = logDir(inject('scratchDir'));
  fs.mkdirSync(dir, { recursive: true });
  const testFile = path.basename(expect.getState().testPath ?? 'unknown', '.test.ts');
  return path.join(dir, `${testFile}.${what}.${process.pid}-${++files}.log`);
}

const PINO_LINE = /^\{"level":\d+,/;

/**
 * Copies a child process's logs into the run's captured logs. A stream named in `output` carries what the
 * command prints for its user (a token `admin token create` made, the secret `listen` signs with, the MCP
 * protocol): only the pino lines of such a stream are logs. `env` is the child's: the secrets it holds
 * (its server secret, URL passwords) are recorded for the scan.
 */
export function captureLogs(
  child: { stdout?: Readable | null; stderr?: Readable | null },
  what: string,
  opts: { env?: NodeJS.ProcessEnv; output?: ('stdout' | 'stderr')[] } = {},
): void {
  const scratch = inject('scratchDir');
  const file = capturedLogFile(what);
  const fd = fs.openSync(file, 'a');
  let open = 0;
  const remember = () =>
    opts.env &&
    rememberSecrets(scratch, { secretKeys: [envSecretKey(opts.env)].filter((k) => k !== null), env: opts.env });
  remember();
  for (const name of ['stdout', 'stderr'] as const) {
    const stream = child[name];
    if (!stream) continue;
    open++;
    const logsOnly = opts.output?.includes(name) ?? false;
    let partial = '';
    stream.on('data', (chunk: Buffer | string) => {
      if (!logsOnly) return void fs.writeSync(fd, typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop()!;
      const logs = lines.filter((l) => PINO_LINE.test(l));
      if (logs.length) fs.writeSync(fd, `${logs.join('\n')}\n`);
    });
    stream.once('close', () => {
      if (logsOnly && PINO_LINE.test(partial)) fs.writeSync(fd, partial);
      if (--open > 0) return;
      fs.closeSync(fd);
      remember(); // a data dir's secret exists once the process has started
    });
  }
  if (!open) fs.closeSync(fd);
}

/**
 * Runs a command to completion with no stdin, collecting its output. Its stderr and the log lines of its
 * stdout (stdout is the command's output) go to the run's captured logs.
 */
export function runProcess(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd?: string,
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    captureLogs(child, path.basename(command), { env, output: ['stdout'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
