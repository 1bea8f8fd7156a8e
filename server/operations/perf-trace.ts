// TEMPORARY perf instrumentation (removed afterwards)
import fs from 'node:fs';
import pg from 'pg';
const sums = new Map<string, number>();
const counts = new Map<string, number>();
let statements = 0;
let requests = 0;
const stmtText = new Map<string, number>();
export function add(name: string, ms: number) {
  sums.set(name, (sums.get(name) ?? 0) + ms);
  counts.set(name, (counts.get(name) ?? 0) + 1);
}
const orig = pg.Client.prototype.query as (...a: unknown[]) => unknown;
(pg.Client.prototype as unknown as { query: unknown }).query = function (this: unknown, ...a: unknown[]) {
  statements++;
  const q = a[0] as string | { text?: string };
  const text = (typeof q === 'string' ? q : (q?.text ?? '?')).replace(/\s+/g, ' ').slice(0, 70);
  stmtText.set(text, (stmtText.get(text) ?? 0) + 1);
  const t = performance.now();
  const r = orig.apply(this, a);
  if (r && typeof (r as Promise<unknown>).then === 'function')
    (r as Promise<unknown>).then(
      () => add(`sql ${text.slice(0, 40)}`, performance.now() - t),
      () => {},
    );
  return r;
};
const origPool = pg.Pool.prototype.query as (...a: unknown[]) => unknown;
(pg.Pool.prototype as unknown as { query: unknown }).query = function (this: unknown, ...a: unknown[]) {
  const q = a[0] as string | { text?: string };
  const text = (typeof q === 'string' ? q : (q?.text ?? '?')).replace(/\s+/g, ' ').slice(0, 40);
  const t = performance.now();
  const r = origPool.apply(this, a);
  if (r && typeof (r as Promise<unknown>).then === 'function')
    (r as Promise<unknown>).then(
      () => add(`pool ${text}`, performance.now() - t),
      () => {},
    );
  return r;
};
export function endRequest() {
  requests++;
  if (requests % 320 === 0) {
    const lines = [`--- after ${requests} requests: ${(statements / 320).toFixed(2)} statements/request`];
    for (const [k, v] of sums) lines.push(`${k.padEnd(22)} avg ${(v / counts.get(k)!).toFixed(3)} ms  (n=${counts.get(k)})`);
    for (const [k, v] of stmtText) lines.push(`  ${(v / 320).toFixed(2)}  ${k}`);
    fs.appendFileSync('/tmp/perf/trace.log', lines.join('\n') + '\n');
    sums.clear();
    counts.clear();
    stmtText.clear();
    statements = 0;
  }
}
