/**
 * A sliding window's count estimated from two fixed windows, the previous one weighted by what is left of the
 * current one: a client at its limit gets it over any window, spread out, not all again at each boundary.
 */
export type TwoWindows = { previous: number; current: number; elapsedMs: number; windowMs: number };

/** The estimate: `current` plus `previous` weighted by the share of the current window still to come. */
export function slidingCount(w: TwoWindows): number {
  return w.previous * Math.max(0, 1 - w.elapsedMs / w.windowMs) + w.current;
}

/** Milliseconds until the estimate is down to `room`, if nothing more is counted meanwhile. */
export function slidingWaitMs(w: TwoWindows, room: number): number {
  // Within this window, once the previous one's weight has faded enough…
  if (w.current <= room && w.previous > 0)
    return Math.max(0, (1 - (room - w.current) / w.previous) * w.windowMs - w.elapsedMs);
  // …or in the next one, once this one's has.
  return w.windowMs - w.elapsedMs + Math.max(0, 1 - room / w.current) * w.windowMs;
}
