import type { Report } from './submissions-run.ts';

/** The submissions benchmark's summary on stdout (the JSON report holds everything). */
export function printReport(r: Report) {
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  const ok = (b: boolean | null) => (b === null ? 'not run' : b ? 'met' : 'MISSED');
  console.log(
    `\nSubmissions benchmark — ${r.data.rows.toLocaleString('en')} submissions (${r.data.inbox.toLocaleString('en')} inbox), payload ~${r.data.payload_text_bytes} B JSON, table ${r.data.table_size}`,
  );
  console.log(`command: ${r.command}   (load average at the end: ${r.machine.loadAverage.join(' ')})`);
  console.log(
    `server configured for a load test (one token sends everything): ${Object.entries(r.serverEnv)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );
  const e = r.export;
  if (e) {
    console.log('\nCSV export of every row');
    console.log(
      `  ${'run'.padEnd(5)}${pad('COPY rows/s', 14)}${pad('API rows/s', 14)}${pad('ratio', 8)}${pad('API s', 8)}${pad('MB', 8)}${pad('RSS +MB', 9)}`,
    );
    for (const run of e.runs) {
      console.log(
        `  ${String(run.run).padEnd(5)}${pad(run.baseline.rowsPerSec.toLocaleString('en'), 14)}${pad(run.api.rowsPerSec.toLocaleString('en'), 14)}` +
          `${pad((run.api.rowsPerSec / run.baseline.rowsPerSec).toFixed(3), 8)}${pad(run.api.seconds, 8)}${pad(run.api.mb, 8)}${pad(run.api.rss.growthMb, 9)}`,
      );
    }
    console.log(
      `  median: COPY ${e.baselineRowsPerSec.toLocaleString('en')} rows/s, API ${e.apiRowsPerSec.toLocaleString('en')} rows/s → ` +
        `ratio ${e.ratio} (target ≥ ${r.goal.exportRatio}: ${ok(r.verdict.exportRatio)})`,
    );
    console.log(
      `  server RSS: idle ${e.server.idleRssMb} MB, peak ${e.server.peakRssMb} MB → growth ${e.server.rssGrowthMb} MB ` +
        `(target < ${r.goal.rssGrowthMb}: ${ok(r.verdict.rssGrowth)}); VmHWM ${e.server.vmHwmMb} MB`,
    );
    console.log(
      `  the queries alone (EXPLAIN ANALYZE): baseline ${e.plans.baselineSelect.executionMs} ms, API ${e.plans.apiSelect.executionMs} ms`,
    );
  }
  const l = r.list;
  if (l) {
    console.log(`\nList latency (per_page=${l.perPage}), ms`);
    console.log(
      `  ${'scenario'.padEnd(14)}${pad('p50', 8)}${pad('p90', 8)}${pad('p99', 8)}${pad('max', 8)}   ${'concurrent clients: p50 / p99 / req/s'}`,
    );
    for (const [name, s] of Object.entries(l.scenarios)) {
      const q = s.sequential;
      const c = s.concurrent
        ? `${s.concurrent.p50} / ${s.concurrent.p99} / ${s.concurrent.reqPerSec} (${r.options.connections} clients)`
        : '-';
      console.log(`  ${name.padEnd(14)}${pad(q.p50, 8)}${pad(q.p90, 8)}${pad(q.p99, 8)}${pad(q.max, 8)}   ${c}`);
    }
    console.log(
      `  cursor walk to page ${l.deepPage.toLocaleString('en')}: ${l.walk.pages.toLocaleString('en')} requests in ${l.walk.seconds} s ` +
        `(p50 ${l.walk.latency.p50} ms, p99 ${l.walk.latency.p99} ms); same rows as ?page=${l.deepPage}: ${l.cursorMatchesOffsetPage}`,
    );
    console.log(`  sequential p99 < ${r.goal.listP99Ms} ms: ${ok(r.verdict.listP99)}`);
    console.log(
      `  the queries alone (EXPLAIN ANALYZE): page 1 ${l.plans.page1.executionMs} ms, page ${l.deepPage} ${l.plans.deepPage.executionMs} ms, cursor ${l.plans.cursor.executionMs} ms`,
    );
  }
  if (r.cpuProfile) {
    console.log(
      `\nServer CPU profile (${r.cpuProfile.file}): ${r.cpuProfile.busyMs} ms busy of ${r.cpuProfile.totalMs} ms; top self time (% of busy):`,
    );
    for (const f of r.cpuProfile.top.slice(0, 15)) console.log(`  ${pad(f.pct, 5)} %  ${pad(f.ms, 6)} ms  ${f.fn}`);
  }
  for (const n of r.notes) console.log(`note: ${n}`);
  console.log(`\nall targets met: ${r.verdict.met}`);
}
