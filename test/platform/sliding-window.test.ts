/**
 * The sliding estimate (server/infra/sliding-window.ts) behind the search budgets and the count of
 * failed authentications: the previous window weighs on the current one in proportion to what is left of it.
 */
import { describe, expect, it } from 'vitest';
import { slidingCount, slidingWaitMs } from '../../server/infra/sliding-window.ts';

const windowMs = 60_000;

describe('a sliding window from two fixed ones', () => {
  it("weighs the previous window's count by what is left of the current one", () => {
    expect(slidingCount({ previous: 60, current: 0, elapsedMs: 0, windowMs })).toBe(60);
    expect(slidingCount({ previous: 60, current: 10, elapsedMs: 15_000, windowMs })).toBe(55);
    expect(slidingCount({ previous: 60, current: 10, elapsedMs: windowMs, windowMs })).toBe(10);
  });

  it('a client that spent the limit gets it back spread over the next window, not all at once as it begins', () => {
    // 60 a minute, all spent last minute: at the start of this one there is no room.
    const start = { previous: 60, current: 0, elapsedMs: 0, windowMs };
    expect(slidingCount({ ...start, current: 1 })).toBeGreaterThan(60);
    // One more fits after a second (60 × (1 − 1/60) + 1 = 60), the next after another.
    expect(slidingWaitMs(start, 59)).toBeCloseTo(1_000, 6);
    expect(slidingWaitMs({ ...start, current: 1, elapsedMs: 1_000 }, 59)).toBeCloseTo(1_000, 6);
  });

  it('waits into the next window when this one is over the room on its own', () => {
    // 80 this window, 30 s in, a room of 40: the rest of this window, then half of the next (80 × ½ = 40).
    expect(slidingWaitMs({ previous: 0, current: 80, elapsedMs: 30_000, windowMs }, 40)).toBe(60_000);
    // Already within the room: no wait.
    expect(slidingWaitMs({ previous: 10, current: 5, elapsedMs: 50_000, windowMs }, 40)).toBe(0);
  });
});
