import fs from 'node:fs';
import { round } from './submissions-context.ts';

/** A field of /proc/<pid>/status, in kB. */
export function procStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
}

/** Peak VmRSS of a process, sampled every 10 ms until stopped. */
export function rssSampler(pid: number) {
  const before = procStatusKb(pid, 'VmRSS');
  let peak = before;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, procStatusKb(pid, 'VmRSS'));
    } catch {
      // exited
    }
  }, 10);
  return {
    stop() {
      clearInterval(timer);
      const after = procStatusKb(pid, 'VmRSS');
      peak = Math.max(peak, after);
      return {
        beforeMb: round(before / 1024),
        peakMb: round(peak / 1024),
        afterMb: round(after / 1024),
        growthMb: round((peak - before) / 1024),
      };
    },
  };
}
