import { AsyncLocalStorage } from 'node:async_hooks';

/** How one piece of work waits for its place. */
export type LaneOptions = {
  /** The error thrown when the line is full, or when the wait ran out. */
  refusal?: ((why: 'full' | 'waited') => Error) | undefined;
  /** The longest the work waits in line before it is refused (unbounded when not given). */
  waitMs?: number | undefined;
  /** The work's client: once it aborts, the work leaves the line (it is not started). */
  signal?: AbortSignal | undefined;
};

type Waiter = { start: () => void };
type Lane = { running: number; line: Waiter[] };

/** Thrown to work that left the line because its client went away (the errors handler answers nobody). */
export function clientGone(): Error {
  return Object.assign(new Error('the client went away'), { type: 'request.aborted' });
}

/**
 * At most `running` pieces of work per key in this process; the rest wait in arrival order (at most `waiting`,
 * each for at most `waitMs`) or are refused. A place is handed on no sooner than `spacingMs` after its work
 * started, which spreads a burst out. Work already holding a key's place (however deep) runs in it rather
 * than queueing behind itself. Nothing waiting holds a database connection.
 */
export class Lanes {
  readonly #lanes = new Map<string, Lane>();
  /** The keys whose place the current async context holds. */
  readonly #held = new AsyncLocalStorage<ReadonlySet<string>>();
  readonly #running: number;
  readonly #waiting: number;
  readonly #spacingMs: (ranMs: number) => number;

  constructor(limits: { running: number; waiting?: number; spacingMs?: number | ((ranMs: number) => number) }) {
    this.#running = limits.running;
    this.#waiting = limits.waiting ?? Number.POSITIVE_INFINITY;
    const spacing = limits.spacingMs ?? 0;
    this.#spacingMs = typeof spacing === 'number' ? () => spacing : spacing;
  }

  /** Runs `work` in `key`'s lane, or throws the refusal when the line is full or the wait runs out. */
  async run<T>(key: string, work: () => Promise<T>, opts: LaneOptions = {}): Promise<T> {
    const held = this.#held.getStore();
    if (held?.has(key)) return work();
    if (opts.signal?.aborted) throw clientGone();
    let lane = this.#lanes.get(key);
    if (!lane) this.#lanes.set(key, (lane = { running: 0, line: [] }));
    if (lane.running < this.#running) lane.running += 1;
    else if (lane.line.length < this.#waiting) await this.#wait(lane, key, opts);
    else throw (opts.refusal ?? defaultRefusal)('full');
    const started = performance.now();
    try {
      return await this.#held.run(new Set(held).add(key), work);
    } finally {
      const ran = performance.now() - started;
      const rest = this.#spacingMs(ran) - ran;
      if (rest > 0) setTimeout(() => this.#handOn(key, lane), rest);
      else this.#handOn(key, lane);
    }
  }

  /** Waits in `lane`'s line until a place is handed on, leaving it on the deadline or when the client goes. */
  #wait(lane: Lane, key: string, opts: LaneOptions): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const leave = (error: Error) => {
        const at = lane.line.indexOf(waiter);
        if (at >= 0) lane.line.splice(at, 1);
        if (!lane.running && !lane.line.length) this.#lanes.delete(key);
        settle();
        reject(error);
      };
      const onAbort = () => leave(clientGone());
      const settle = () => {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        start: () => {
          settle();
          resolve();
        },
      };
      lane.line.push(waiter);
      if (opts.waitMs !== undefined)
        timer = setTimeout(() => leave((opts.refusal ?? defaultRefusal)('waited')), opts.waitMs);
      opts.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #handOn(key: string, lane: Lane) {
    const next = lane.line.shift();
    if (next) next.start();
    else if (--lane.running === 0) this.#lanes.delete(key);
  }
}

const defaultRefusal = (why: 'full' | 'waited') =>
  new Error(why === 'full' ? 'the lane is full' : 'the wait for a place ran out');
