/**
 * Everything a benchmark starts (child processes, the embedded Postgres, temp dirs) registers how to
 * undo it here. `cleanupAll` undoes it in reverse order; Ctrl-C / SIGTERM run it before exiting, and a
 * last synchronous pass on `exit` kills whatever is still alive if the orderly path could not finish.
 */
type Entry = { name: string; run: () => Promise<void> | void; sync?: () => void };

const stack: Entry[] = [];
let interrupted = false;
const interruptListeners = new Set<() => void>();

export function onCleanup(name: string, run: () => Promise<void> | void, sync?: () => void): () => void {
  const entry: Entry = { name, run, sync };
  stack.push(entry);
  return () => {
    const i = stack.indexOf(entry);
    if (i !== -1) stack.splice(i, 1);
  };
}

/** Runs (and forgets) every registered cleanup, newest first; failures are reported, not thrown. */
export async function cleanupAll(): Promise<void> {
  while (stack.length) {
    const entry = stack.pop()!;
    try {
      await entry.run();
    } catch (err) {
      console.error(`bench: cleanup "${entry.name}" failed: ${(err as Error).message}`);
    }
  }
}

function cleanupSync(): void {
  while (stack.length) {
    const entry = stack.pop()!;
    try {
      entry.sync?.();
    } catch {
      // exiting anyway
    }
  }
}

export const isInterrupted = () => interrupted;

/** Called on the first Ctrl-C, e.g. to stop a running load generator so the benchmark unwinds. */
export function onInterrupt(fn: () => void): () => void {
  interruptListeners.add(fn);
  return () => interruptListeners.delete(fn);
}

export class Interrupted extends Error {
  constructor() {
    super('interrupted');
  }
}

/** First signal: orderly cleanup, then exit 130. Second signal: synchronous kill-everything and exit. */
export function installSignalHandlers(): void {
  const handler = (signal: NodeJS.Signals) => {
    if (interrupted) {
      console.error(`\nbench: ${signal} again, killing everything now`);
      cleanupSync();
      process.exit(130);
    }
    interrupted = true;
    console.error(`\nbench: ${signal}, stopping and cleaning up (again to force)…`);
    for (const fn of interruptListeners) fn();
    // The running benchmark sees the interruption and unwinds; if it does not within a while, clean up here.
    setTimeout(() => {
      void cleanupAll().finally(() => process.exit(130));
    }, 20_000).unref();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  process.on('SIGHUP', handler);
  process.on('exit', cleanupSync);
  // A stray rejection must not end the process before what it started is stopped.
  process.on('unhandledRejection', (err) => {
    console.error(`bench: unhandled rejection: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    void cleanupAll().finally(() => process.exit(1));
  });
}
