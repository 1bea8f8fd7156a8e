/**
 * Work that runs at most `running` at a time per key in this process; the rest waits its turn in arrival
 * order, at most `waiting` of it (unbounded when not given), and work past that is refused at once. A
 * finished piece of work hands its place to the next in line, no sooner than `spacingMs` after it started
 * (0 when not given): a lane of `running: 1` with a spacing starts a key's work at most once per spacing,
 * which spreads a burst out instead of letting it take a core. Nothing waiting holds a database
 * connection: work asks for one when it runs. `running: 1` makes a key's work take turns. A key is
 * forgotten once nothing of it runs or waits and its last spacing has passed.
 */
export class Lanes {
  readonly #lanes = new Map<string, { running: number; line: Array<() => void> }>();
  readonly #running: number;
  readonly #waiting: number;
  readonly #spacingMs: number;

  constructor(limits: { running: number; waiting?: number; spacingMs?: number }) {
    this.#running = limits.running;
    this.#waiting = limits.waiting ?? Number.POSITIVE_INFINITY;
    this.#spacingMs = limits.spacingMs ?? 0;
  }

  /** Runs `work` in `key`'s lane, or throws `refusal()` when the lane runs and waits for as much as it may. */
  async run<T>(key: string, work: () => Promise<T>, refusal: () => Error = () => new Error('the lane is full')): Promise<T> {
    let lane = this.#lanes.get(key);
    if (!lane) this.#lanes.set(key, (lane = { running: 0, line: [] }));
    if (lane.running < this.#running) lane.running += 1;
    else if (lane.line.length < this.#waiting) await new Promise<void>((resolve) => lane.line.push(resolve));
    else throw refusal();
    const started = performance.now();
    try {
      return await work();
    } finally {
      const rest = this.#spacingMs - (performance.now() - started);
      if (rest > 0) setTimeout(() => this.#handOn(key, lane), rest);
      else this.#handOn(key, lane);
    }
  }

  #handOn(key: string, lane: { running: number; line: Array<() => void> }) {
    const next = lane.line.shift();
    if (next) next();
    else if (--lane.running === 0) this.#lanes.delete(key);
  }
}
