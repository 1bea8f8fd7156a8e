import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, inject } from 'vitest';
import { captureLogs } from './processes.ts';
import { serverProcessEnv } from './tls.ts';

const intake = fileURLToPath(new URL('../../cli/intake', import.meta.url));

export type WorkerProcess = { child: ChildProcess; output: () => string; exited: Promise<unknown>; kill(): Promise<void> };

/**
 * Real `intake worker` processes for a test file, on its private database and data directory, trusting the
 * HTTPS test receivers' certificate (which the test process itself does not). `env` is the file's own
 * settings; each start may add more. Every worker still running is killed after the file.
 */
export function workerProcesses(base: { databaseUrl: string; dataDir: string; env?: Record<string, string> }) {
  const running = new Set<WorkerProcess>();
  afterAll(async () => {
    for (const w of running) await w.kill();
  });
  return {
    start(extraEnv: Record<string, string> = {}): WorkerProcess {
      const env = {
        PATH: process.env.PATH,
        DATABASE_URL: base.databaseUrl,
        STORAGE_URL: inject('storageUrl'),
        STORAGE_BUCKET: 'intake-test',
        INTAKE_DATA_DIR: base.dataDir,
        INTAKE_BASE_URL: 'http://intake.test',
        INTAKE_QUEUE_POLL_SECONDS: '0.5',
        LOG_LEVEL: 'debug',
        ...serverProcessEnv(),
        ...base.env,
        ...extraEnv,
      };
      const child = spawn(intake, ['worker'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      captureLogs(child, 'worker', { env });
      let output = '';
      child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
      child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
      const exited = once(child, 'exit');
      const w: WorkerProcess = {
        child,
        output: () => output,
        exited,
        async kill() {
          child.kill('SIGKILL');
          await exited;
        },
      };
      running.add(w);
      void exited.then(() => running.delete(w));
      return w;
    },
  };
}

/** Polls `fn` every 50 ms until `ok` holds; the timeout error shows the last value and `context()`. */
export async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000, context: () => string = () => ''): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out; last value ${JSON.stringify(v)}\n${context()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
