import { installationEnv, cliProcesses, type CliProcess } from './cli.ts';
import { serverProcessEnv } from './tls.ts';

export type WorkerProcess = CliProcess;

/**
 * Real `intake worker` processes for a test file, on its private database and data directory, trusting the
 * HTTPS test receivers' certificate (which the test process itself does not). `env` is the file's own
 * settings; each start may add more. Every worker still running is killed after the file.
 */
export function workerProcesses(base: { databaseUrl: string; dataDir: string; env?: Record<string, string> }) {
  const processes = cliProcesses();
  return {
    start(extraEnv: Record<string, string> = {}): WorkerProcess {
      const env = installationEnv(base, {
        INTAKE_QUEUE_POLL_SECONDS: '0.5',
        LOG_LEVEL: 'debug',
        ...serverProcessEnv(),
        ...base.env,
        ...extraEnv,
      });
      return processes.start(['worker'], env);
    },
  };
}

/** Polls `fn` every 50 ms until `ok` holds; the timeout error shows the last value and `context()`. */
export async function eventually<T>(
  fn: () => Promise<T>,
  ok: (v: T) => boolean,
  timeoutMs = 20_000,
  context: () => string = () => '',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out; last value ${JSON.stringify(v)}\n${context()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
