/**
 * The machine's block-device counters (/proc/diskstats, whole disks only): what was read and written and how
 * long requests waited. Every commit waits for its WAL flush; when the flush is slow while the WAL volume is
 * ordinary, something else on the same disk (a checkpoint, the OS writing back dirty pages, an export's reads)
 * is the likely cause, and these counters say which direction the traffic went.
 */
import fs from 'node:fs';

export type DiskReading = {
  readMb: number;
  writtenMb: number;
  reads: number;
  writes: number;
  flushes: number;
  weightedIoMs: number;
};

const ZERO: DiskReading = { readMb: 0, writtenMb: 0, reads: 0, writes: 0, flushes: 0, weightedIoMs: 0 };

/** Whole disks: block devices that are not loop, RAM or zram devices. */
function disks(): Set<string> {
  try {
    return new Set(fs.readdirSync('/sys/block').filter((d) => !/^(loop|ram|zram)/.test(d)));
  } catch {
    return new Set();
  }
}

const DISKS = disks();

/** The counters so far, summed over the whole disks (zero where /proc/diskstats is absent). */
export function diskReading(): DiskReading {
  let text: string;
  try {
    text = fs.readFileSync('/proc/diskstats', 'utf8');
  } catch {
    return ZERO;
  }
  const sum = { ...ZERO };
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (!DISKS.has(f[2] ?? '')) continue;
    const n = (i: number) => Number(f[i] ?? 0);
    // Fields (Documentation/admin-guide/iostats.rst): 3 reads, 5 sectors read, 7 writes, 9 sectors written,
    // 13 weighted ms doing I/O, 19 flush requests (kernel 5.5+).
    sum.reads += n(3);
    sum.readMb += (n(5) * 512) / 1e6;
    sum.writes += n(7);
    sum.writtenMb += (n(9) * 512) / 1e6;
    sum.weightedIoMs += n(13);
    sum.flushes += n(19);
  }
  return sum;
}

/** What happened on the disks between two readings, rounded for a report. */
export function diskBetween(a: DiskReading, b: DiskReading): DiskReading {
  const d = (k: keyof DiskReading, places = 0) => Math.round((b[k] - a[k]) * 10 ** places) / 10 ** places;
  return {
    readMb: d('readMb', 2),
    writtenMb: d('writtenMb', 2),
    reads: d('reads'),
    writes: d('writes'),
    flushes: d('flushes'),
    weightedIoMs: d('weightedIoMs'),
  };
}
