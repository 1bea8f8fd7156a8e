/**
 * `serve`, `worker` and `dev` run until a signal, and boot() holds one that comes while they start. Before
 * boot() runs, Node spends about a second loading the server, and a SIGTERM then (a deploy that changes its
 * mind, a scale-down right after a scale-up) would kill the process by the signal. Imported first by
 * main.ts, this holds such signals until boot() takes them.
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
