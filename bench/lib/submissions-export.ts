import http from 'node:http';
import { to as copyTo } from 'pg-copy-streams';
import { exportSelect } from '../../server/infra/db/queries/exports.ts';
import { withClient } from './infra.ts';
import { procStatusKb, rssSampler } from './rss.ts';
import { checkInterrupted, explain, log, round, type BenchContext, type BenchServer } from './submissions-context.ts';

/** The submissions benchmark's export part: the API's CSV export against `COPY` of the same rows. */

type ExportRun = { seconds: number; rows: number; rowsPerSec: number; mb: number; firstByteMs: number };

function countNewlines(chunk: Buffer): number {
  let n = 0;
  for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) n++;
  return n;
}

/** `COPY (SELECT …) TO STDOUT WITH CSV` of the same rows and columns, through pg-copy-streams, discarded. */
async function copyBaseline(dbUrl: string, sql: string): Promise<ExportRun> {
  return withClient(dbUrl, async (c) => {
    const started = performance.now();
    let bytes = 0;
    let lines = 0;
    let firstByteMs = 0;
    for await (const chunk of c.query(copyTo(sql)) as AsyncIterable<Buffer>) {
      if (!firstByteMs) firstByteMs = performance.now() - started;
      bytes += chunk.length;
      lines += countNewlines(chunk);
    }
    const seconds = (performance.now() - started) / 1000;
    return {
      seconds: round(seconds, 3),
      rows: lines,
      rowsPerSec: Math.round(lines / seconds),
      mb: round(bytes / 1048576),
      firstByteMs: round(firstByteMs),
    };
  });
}

/** GET …/submissions/export?format=csv, read as fast as it comes and discarded (the header line is not a row). */
async function apiExport(server: BenchServer, formId: string, token: string): Promise<ExportRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let bytes = 0;
    let lines = 0;
    let firstByteMs = 0;
    const req = http.get(
      `${server.url}/v1/forms/${formId}/submissions/export?format=csv`,
      { agent: false, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`export answered ${res.statusCode}`));
          res.resume();
          return;
        }
        res.on('data', (chunk: Buffer) => {
          if (!firstByteMs) firstByteMs = performance.now() - started;
          bytes += chunk.length;
          lines += countNewlines(chunk);
        });
        res.on('end', () => {
          const seconds = (performance.now() - started) / 1000;
          const rows = lines - 1;
          resolve({
            seconds: round(seconds, 3),
            rows,
            rowsPerSec: Math.round(rows / seconds),
            mb: round(bytes / 1048576),
            firstByteMs: round(firstByteMs),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

/** Alternating runs of the COPY baseline and the API export; the medians are compared. */
export async function measureExport(c: BenchContext) {
  const { opts, admin, account, fields, server } = c;
  const lit = (v: string) => admin.escapeLiteral(v);
  const baselineSelect = `select s.id, s.received_at, s.status, s.category, s.ai_moderation ->> 'score', ${fields.map((f) => `s.payload ->> ${lit(f)}`).join(', ')}
    from submissions s where s.form_id = ${lit(account.formId)} order by s.received_at, s.id`;
  const baselineSql = `copy (${baselineSelect}) to stdout with (format csv)`;
  const runs: Array<{
    run: number;
    baseline: ExportRun;
    api: ExportRun & { rss: ReturnType<ReturnType<typeof rssSampler>['stop']> };
  }> = [];
  for (let run = 1; run <= opts.runs; run++) {
    checkInterrupted();
    const baseline = await copyBaseline(c.dbUrl, baselineSql);
    if (baseline.rows !== opts.rows) throw new Error(`COPY returned ${baseline.rows} rows, expected ${opts.rows}`);
    log(
      `export run ${run}: COPY ${baseline.rowsPerSec.toLocaleString('en')} rows/s (${baseline.seconds} s, ${baseline.mb} MB)`,
    );
    const sampler = rssSampler(server.pid);
    const api = await apiExport(server, account.formId, account.token);
    const rss = sampler.stop();
    if (api.rows !== opts.rows) throw new Error(`the API export returned ${api.rows} rows, expected ${opts.rows}`);
    log(
      `export run ${run}: API  ${api.rowsPerSec.toLocaleString('en')} rows/s (${api.seconds} s, ${api.mb} MB), server RSS ${rss.beforeMb} → peak ${rss.peakMb} MB (+${rss.growthMb})`,
    );
    runs.push({ run, baseline, api: { ...api, rss } });
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  const baselineRowsPerSec = Math.round(median(runs.map((r) => r.baseline.rowsPerSec)));
  const apiRowsPerSec = Math.round(median(runs.map((r) => r.api.rowsPerSec)));
  const peakRssMb = Math.max(...runs.map((r) => r.api.rss.peakMb));
  // The queries alone (EXPLAIN ANALYZE, no output): what the API's SQL costs Postgres over the baseline's.
  await admin.query(`select set_config('intake.link_key', $1, false)`, [Buffer.alloc(32, 7).toString('hex')]); // only changes the signatures' bytes
  const plans = {
    baselineSelect: await explain(admin, baselineSelect),
    apiSelect: await explain(
      admin,
      exportSelect('csv', {
        teamId: account.teamId,
        formId: account.formId,
        fields,
        fileCount: c.stats.files,
        baseUrl: server.url,
        expires: Math.floor(Date.now() / 1000) + 7 * 24 * 3600,
      }),
    ),
  };
  return {
    baselineDescription:
      'COPY (SELECT id, received_at, status, category, ai_moderation->>score, payload->>field for each known field FROM submissions WHERE form_id = … ORDER BY received_at, id) TO STDOUT WITH CSV, read through pg-copy-streams and discarded',
    runs,
    baselineRowsPerSec,
    apiRowsPerSec,
    ratio: round(apiRowsPerSec / baselineRowsPerSec, 3),
    server: {
      idleRssMb: c.idleRssMb,
      peakRssMb,
      rssGrowthMb: round(peakRssMb - c.idleRssMb),
      vmHwmMb: round(procStatusKb(server.pid, 'VmHWM') / 1024),
    },
    plans,
  };
}
