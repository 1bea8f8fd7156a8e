/**
 * Lanes (server/infra/lanes.ts), the one mechanism behind a team's lane, the export chunk and
 * opening lanes and the searches' turns: places per key, a bounded line, and a spacing between starts.
 */
import { describe, expect, it } from 'vitest';
import { Lanes } from '../../server/infra/lanes.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Lanes', () => {
  it('runs `running` pieces of work per key at once, lines up the rest in order, and refuses past the line', async () => {
    const lanes = new Lanes({ running: 2, waiting: 1 });
    const order: string[] = [];
    let busy = 0;
    let peak = 0;
    const work = (name: string) => async () => {
      busy += 1;
      peak = Math.max(peak, busy);
      order.push(name);
      await sleep(20);
      busy -= 1;
      return name;
    };
    const runs = ['a', 'b', 'c'].map((name) => lanes.run('team', work(name)));
    await expect(lanes.run('team', work('d'), { refusal: () => new Error('full') })).rejects.toThrow('full');
    // Another key has places of its own.
    expect(await lanes.run('other', work('x'))).toBe('x');
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c']);
    expect(order).toEqual(['a', 'b', 'x', 'c']);
    expect(peak).toBe(3);
  });

  it("with a spacing, starts a key's work no more often than once per spacing, however fast the work is", async () => {
    const lanes = new Lanes({ running: 1, spacingMs: 60 });
    const starts: number[] = [];
    const quick = async () => void starts.push(performance.now());
    const began = performance.now();
    await Promise.all([1, 2, 3, 4].map(() => lanes.run('team', quick)));
    // The fourth start follows three spacings; timers never fire early, a little slack for the clock's rounding.
    const gaps = starts.slice(1).map((at, i) => at - starts[i]!);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(58);
    expect(starts[0]! - began).toBeLessThan(30);
    // A piece of work slower than the spacing hands its place on as it ends; another key is not held back.
    const slowStarts: number[] = [];
    const slow = async () => {
      slowStarts.push(performance.now());
      await sleep(100);
    };
    const otherStarted = performance.now();
    await Promise.all([
      lanes.run('slow', slow),
      lanes.run('slow', slow),
      lanes.run('another', async () => expect(performance.now() - otherStarted).toBeLessThan(30)),
    ]);
    expect(slowStarts[1]! - slowStarts[0]!).toBeGreaterThanOrEqual(98);
    expect(slowStarts[1]! - slowStarts[0]!).toBeLessThan(150);
  });

  it("with a spacing that grows with the work, keeps a key's work to its share of the time", async () => {
    const lanes = new Lanes({ running: 1, waiting: 1, spacingMs: (ranMs) => Math.max(20, 5 * ranMs) });
    const starts: number[] = [];
    const work = async () => {
      starts.push(performance.now());
      await sleep(60);
    };
    await Promise.all([lanes.run('team', work), lanes.run('team', work)]);
    // The first ran ~60 ms: the second starts five times that after the first started, not as it ended.
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(295);
    expect(starts[1]! - starts[0]!).toBeLessThan(600);
  });

  it('leaves the line when its client goes away or its wait runs out, and runs in place when it holds the key', async () => {
    const lanes = new Lanes({ running: 1, waiting: 2 });
    let release!: () => void;
    const holder = lanes.run('team', () => new Promise<void>((resolve) => (release = resolve)));
    const gone = new AbortController();
    const leaving = lanes.run('team', async () => 'ran', { signal: gone.signal });
    const waited = lanes.run('team', async () => 'ran', { waitMs: 50, refusal: (why) => new Error(why) });
    gone.abort();
    await expect(leaving).rejects.toMatchObject({ type: 'request.aborted' });
    await expect(waited).rejects.toThrow('waited');
    // Both left: the line has room for two again, and nested work of the holder does not queue behind it.
    const nested = lanes.run('team', async () => lanes.run('team', async () => 'inner'));
    const next = lanes.run('team', async () => 'next');
    release();
    await holder;
    expect(await nested).toBe('inner');
    expect(await next).toBe('next');
  });
});
