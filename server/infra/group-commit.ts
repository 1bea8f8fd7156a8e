/**
 * Group commit: items wait while `maxRunning` batches are written, then the next batch takes up to `maxBatch`.
 * Under load one commit (one WAL flush) carries many items; an idle process sends an item at once. `run`
 * settles every item itself. A deferred item (`deferMs`) rides with the next batch, or goes after `deferMs`.
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
