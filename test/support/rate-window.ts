/**
 * The rate limits count in fixed windows on the minute (Postgres's clock: this machine's). A test that spends
 * a budget and expects the next request refused waits, when needed, until the current minute has at least
 * `leftMs` to run, so its requests cannot straddle a boundary that would reset the count.
 */
export async function withinOneMinuteWindow(leftMs = 20_000): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (60_000 - intoMinute < leftMs) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 500));
}
