/**
 * Work that takes turns per key, in this process: each call with a key runs once every earlier call with
 * the same key has settled, in the order they came. Nothing is refused and nothing is held while waiting
 * (no database connection: the work asks for one when its turn comes).
 */
export class Turns {
  readonly #tails = new Map<string, Promise<unknown>>();

  async take<T>(key: string, work: () => Promise<T>): Promise<T> {
    const run = (this.#tails.get(key) ?? Promise.resolve()).then(work, work);
    const tail = run.catch(() => {});
    this.#tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  /** Keys with work running or waiting. */
  get size(): number {
    return this.#tails.size;
  }
}
