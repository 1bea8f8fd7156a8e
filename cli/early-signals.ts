/**
 * `serve`, `worker` and `dev` run until a signal. While Node loads the server, before boot() can hold one, a
 * SIGTERM would kill the process; imported first by main.ts, this holds such signals until boot() takes them.
 */
const LONG_RUNNING = ['serve', 'worker', 'dev'];
const held: NodeJS.Signals[] = [];
const hold = (signal: NodeJS.Signals) => void held.push(signal);

if (LONG_RUNNING.includes(process.argv[2] ?? '')) {
  process.on('SIGINT', hold);
  process.on('SIGTERM', hold);
}

/** Stops holding (the caller has its own handlers by now) and answers the signals held so far. */
export function takeEarlySignals(): NodeJS.Signals[] {
  process.off('SIGINT', hold);
  process.off('SIGTERM', hold);
  return held.splice(0);
}
