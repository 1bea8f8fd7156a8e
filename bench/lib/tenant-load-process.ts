/**
 * Team B's load for bench/noisy-neighbour.ts in a process of its own: `fork`ed with an IPC channel, it runs
 * runTenantLoad (tenant-load.ts) for each `{ run: TenantLoadOptions }` message and answers `{ result }`,
 * its accepted posts as entries. A latency is timed on this process's event loop, so nothing else runs here:
 * the benchmark's sampler (reads of /proc and Postgres every 100 ms) and its garbage had stalled that loop
 * for 5–60 ms at a time when they shared it, and the stall showed in every request in flight. One process
 * serves every phase, so the warm-up before a run warms the code that runs it.
 */
import { runTenantLoad, type TenantLoadOptions } from './tenant-load.ts';

process.on('message', (message: { run: TenantLoadOptions }) => {
  void runTenantLoad(message.run).then(
    ({ accepted, ...result }) => process.send!({ result: { ...result, accepted: [...accepted] } }),
    (err: Error) => process.send!({ error: err.stack ?? err.message }),
  );
});
process.on('disconnect', () => process.exit(0));
