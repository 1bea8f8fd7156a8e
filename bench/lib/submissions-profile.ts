import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, round, type BenchServer } from './submissions-context.ts';

/** Stops the server; with --cpu-prof, sums the profile's self time by function (top 20). */
export async function stopAndProfile(server: BenchServer, profileDir: string | null) {
  await server.stop();
  if (!profileDir || !fs.existsSync(profileDir)) return null;
  // Every node process of the server writes one (a launcher too): the server's is the largest.
  const file = fs
    .readdirSync(profileDir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort((a, b) => fs.statSync(path.join(profileDir, b)).size - fs.statSync(path.join(profileDir, a)).size)[0];
  if (!file) return null;
  type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number } };
  const prof = JSON.parse(fs.readFileSync(path.join(profileDir, file), 'utf8')) as {
    nodes: Node[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  prof.samples.forEach((id, i) => {
    const dt = prof.timeDeltas[i] ?? 0;
    const n = byId.get(id)!;
    const where = n.callFrame.url
      ? `${n.callFrame.url.replace(`file://${ROOT}/`, '').replace(/^.*node_modules\//, '')}:${n.callFrame.lineNumber + 1}`
      : '';
    const key = `${n.callFrame.functionName || '(anonymous)'} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  });
  const busy = total - (self.get('(idle)') ?? 0);
  self.delete('(idle)');
  const top = [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 30)
    .map(([fn, us]) => ({ fn, ms: Math.round(us / 1000), pct: round((100 * us) / busy) }));
  const kept = path.join(os.tmpdir(), `intake-bench-submissions-${process.pid}.cpuprofile`);
  fs.copyFileSync(path.join(profileDir, file), kept);
  return { file: kept, totalMs: Math.round(total / 1000), busyMs: Math.round(busy / 1000), top };
}
