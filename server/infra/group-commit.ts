/**
 * Group commit: items wait while `maxRunning` batches are being written, then the next batch takes every item
 * waiting (up to `maxBatch`). Under load one commit — one WAL flush, the cost that dominates a write here —
 * carries many items; with nothing in flight an item goes at once, so an idle process adds no delay.
 * `run` must settle every item of its batch itself (it may fall back to one item at a time on failure).
 *
 * An item that can wait (`add(item, { deferMs })`) starts no batch of its own: it rides along with the next
 * batch anything else starts, or goes once it has waited `deferMs`.
 */
export class GroupCommit<T> {
  readonly #waiting: T[] = [];
  readonly #deferred: T[] = [];
  #deferTimer: NodeJS.Timeout | null = null;
  readonly #idle = new Set<() => void>();
  readonly #run: (batch: T[]) => Promise<void>;
  readonly #limits: { maxRunning: number; maxBatch: number };
  #running = 0;

  constructor(run: (batch: T[]) => Promise<void>, limits: { maxRunning: number; maxBatch: number }) {
    this.#run = run;
    this.#limits = limits;
  }

  add(item: T, opts?: { deferMs: number }): void {
    if (!opts) {
      this.#waiting.push(item);
      this.#pump();
      return;
    }
    this.#deferred.push(item);
    this.#deferTimer ??= setTimeout(() => this.#undefer(), opts.deferMs);
  }

  /** Resolves once nothing waits and no batch is running; deferred items go at once. */
  async drained(): Promise<void> {
    this.#undefer();
    if (!this.#running && !this.#waiting.length) return;
    await new Promise<void>((resolve) => this.#idle.add(resolve));
  }

  /** The deferred items join the waiting ones (their time is up, or the queue is being drained). */
  #undefer(): void {
    if (this.#deferTimer) clearTimeout(this.#deferTimer);
    this.#deferTimer = null;
    this.#waiting.push(...this.#deferred.splice(0));
    this.#pump();
  }

  #pump(): void {
    while (this.#running < this.#limits.maxRunning && this.#waiting.length) {
      const batch = this.#waiting.splice(0, this.#limits.maxBatch);
      batch.push(...this.#deferred.splice(0, this.#limits.maxBatch - batch.length));
      if (!this.#deferred.length && this.#deferTimer) {
        clearTimeout(this.#deferTimer);
        this.#deferTimer = null;
      }
      this.#running += 1;
      void this.#run(batch)
        .catch(() => {}) // `run` settles its items; a throw here must not stop the queue
        .finally(() => {
          this.#running -= 1;
          this.#pump();
          if (this.#running || this.#waiting.length) return;
          for (const resolve of this.#idle) resolve();
          this.#idle.clear();
        });
    }
  }
}
