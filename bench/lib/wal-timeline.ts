/**
 * WAL (and temporary files) written between marks of a run, and where the heaviest stretch went (pg_walinspect, by relation): every
 * commit waits for the WAL flushed before it, so a burst of WAL from one tenant lengthens every other tenant's
 * commit. Without pg_walinspect (Postgres < 16, or not installable) only the byte counts are reported.
 */
import pg from 'pg';
import { walBreakdown, type WalLine } from '../wal-breakdown.ts';
import { diskBetween, diskReading, type DiskReading } from './disk-stats.ts';

/** `tempBytes`: the database's temporary-file bytes so far (sorts and hashes past work_mem), which share the disk with the WAL. */
export type WalMark = {
  name: string;
  at: number;
  lsn: string;
  tempBytes: number;
  checkpoints: number;
  checkpointBuffers: number;
  disk: DiskReading;
};

/** `checkpoints`: checkpoints begun (timed or requested) and the buffers they wrote; `disk`: the machine's disks over the stretch. */
export type WalStretch = {
  from: string;
  to: string;
  seconds: number;
  bytes: number;
  mbPerSecond: number;
  tempMb: number;
  checkpoints: number;
  checkpointMb: number;
  disk: DiskReading;
};

export class WalTimeline {
  readonly #client: pg.Client;
  readonly #marks: WalMark[] = [];
  #inspect = false;
  /** Checkpoint counters: pg_stat_checkpointer from Postgres 17, pg_stat_bgwriter before. */
  #checkpointerView = 'pg_stat_checkpointer';
  #checkpointer = 'b.num_timed + b.num_requested as checkpoints, b.buffers_written as buffers';

  private constructor(client: pg.Client) {
    this.#client = client;
  }

  static async open(url: string): Promise<WalTimeline> {
    const client = new pg.Client({ connectionString: url, application_name: 'noisy-bench-wal' });
    await client.connect();
    const timeline = new WalTimeline(client);
    const { rows } = await client.query<{ v: number }>(`select current_setting('server_version_num')::int as v`);
    if (rows[0]!.v < 170000) {
      timeline.#checkpointerView = 'pg_stat_bgwriter';
      timeline.#checkpointer =
        'b.checkpoints_timed + b.checkpoints_req as checkpoints, b.buffers_checkpoint as buffers';
    }
    timeline.#inspect = await client.query('create extension if not exists pg_walinspect').then(
      () => true,
      () => false,
    );
    return timeline;
  }

  async mark(name: string): Promise<void> {
    const { rows } = await this.#client.query<{
      lsn: string;
      temp_bytes: string;
      checkpoints: string;
      buffers: string;
    }>(
      `select pg_current_wal_lsn()::text as lsn, d.temp_bytes, ${this.#checkpointer}
         from pg_stat_database d, ${this.#checkpointerView} b where d.datname = current_database()`,
    );
    const r = rows[0]!;
    this.#marks.push({
      name,
      at: Date.now(),
      lsn: r.lsn,
      tempBytes: Number(r.temp_bytes),
      checkpoints: Number(r.checkpoints),
      checkpointBuffers: Number(r.buffers),
      disk: diskReading(),
    });
  }

  /** WAL bytes and MB/s between consecutive marks. */
  async stretches(): Promise<WalStretch[]> {
    const out: WalStretch[] = [];
    for (let i = 1; i < this.#marks.length; i++) {
      const [a, b] = [this.#marks[i - 1]!, this.#marks[i]!];
      const { rows } = await this.#client.query<{ bytes: string }>(
        'select ($2::pg_lsn - $1::pg_lsn)::bigint as bytes',
        [a.lsn, b.lsn],
      );
      const bytes = Number(rows[0]!.bytes);
      const seconds = Math.max(0.001, (b.at - a.at) / 1000);
      const tempMb = Math.round((b.tempBytes - a.tempBytes) / 1e5) / 10;
      out.push({
        from: a.name,
        to: b.name,
        seconds: Math.round(seconds * 10) / 10,
        bytes,
        mbPerSecond: Math.round((bytes / 1e6 / seconds) * 100) / 100,
        tempMb,
        checkpoints: b.checkpoints - a.checkpoints,
        checkpointMb: Math.round(((b.checkpointBuffers - a.checkpointBuffers) * 8192) / 1e5) / 10,
        disk: diskBetween(a.disk, b.disk),
      });
    }
    return out;
  }

  /** Where the WAL between two marks went, heaviest first (null without pg_walinspect). */
  async breakdown(from: string, to: string, top = 12): Promise<WalLine[] | null> {
    if (!this.#inspect) return null;
    const a = this.#marks.find((m) => m.name === from)!;
    const b = this.#marks.find((m) => m.name === to)!;
    const { rows } = await this.#client.query<{ bytes: string }>('select ($2::pg_lsn - $1::pg_lsn)::bigint as bytes', [
      a.lsn,
      b.lsn,
    ]);
    return (await walBreakdown(this.#client, a.lsn, b.lsn, Number(rows[0]!.bytes))).slice(0, top);
  }

  async close(): Promise<void> {
    await this.#client.end().catch(() => {});
  }
}
