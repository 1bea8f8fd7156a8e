import pg from 'pg';

/**
 * Samples pg_stat_activity every 100 ms: what the database's active client backends wait on (a lock wait names
 * its statement and its blocker's). Stop it for the `top` events, each with its share of the samples.
 */
export function startWaitSampler(url: string, log: (line: string) => void, top = 16) {
  const client = new pg.Client({ connectionString: url });
  const counts = new Map<string, number>();
  let samples = 0;
  let running = true;
  let failures = 0;
  const done = (async () => {
    await client.connect();
    await client.query(`set application_name = 'bench-wait-sampler'`);
    while (running) {
      try {
        // Lock waits name the statement that waits (which row or object is contended).
        const { rows } = await client.query<{ event: string; n: number }>(
          `select coalesce(a.wait_event_type || ':' || a.wait_event, 'CPU')
                  || case when a.wait_event_type = 'Lock'
                          then ' <- ' || left(regexp_replace(a.query, '\\s+', ' ', 'g'), 50)
                               || coalesce(' [blocker: ' || (
                                    select coalesce(b.wait_event_type || ':' || b.wait_event, b.state) || ' ' || left(regexp_replace(b.query, '\\s+', ' ', 'g'), 40)
                                      from pg_stat_activity b where b.pid = (pg_blocking_pids(a.pid))[1] limit 1) || ']', '')
                          else '' end as event,
                  count(*)::int as n
             from pg_stat_activity a
            where a.datname = current_database() and a.state = 'active' and a.pid <> pg_backend_pid()
              and a.backend_type = 'client backend'
            group by 1`,
        );
        for (const r of rows) {
          counts.set(r.event, (counts.get(r.event) ?? 0) + r.n);
          samples += r.n;
        }
      } catch (err) {
        // A racy snapshot of pg_stat_activity is no reason to lose the run: skip the sample.
        if (++failures > 50) throw err;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })()
    .catch((err: Error) => log(`wait sampler stopped: ${err.message}`))
    .finally(() => client.end().catch(() => {}));
  return async () => {
    running = false;
    await done;
    return [...counts.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([event, n]) => ({ event, pct: Math.round((1000 * n) / Math.max(1, samples)) / 10 }));
  };
}
