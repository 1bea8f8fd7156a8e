import fs from 'node:fs';
import path from 'node:path';

/** The V8 .cpuprofile format written by `node --cpu-prof`. */
type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
};
type Profile = { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] };

export type ProfileSummary = {
  file: string;
  windowMs: number;
  /** Wall time the main thread was not idle (running JS, GC or native code — or runnable but waiting for a core). */
  sampledMs: number;
  /** Samples in the window where the process waited (event loop idle). */
  idleMs: number;
  /** Share of the window's samples per area (a package under node_modules, an Intake source dir, V8/Node internals). */
  selfByArea: Array<{ area: string; ms: number; pct: number }>;
  topSelf: Array<{ fn: string; ms: number; pct: number }>;
  /** Inclusive time of frames in Intake's own code and selected libraries (recursion counted once). */
  topInclusive: Array<{ fn: string; ms: number; pct: number }>;
};

function areaOf(url: string, functionName: string, root: string): string {
  if (!url) {
    if (functionName === '(garbage collector)') return 'V8: garbage collector';
    if (functionName === '(idle)') return '(idle)';
    if (functionName === '(program)') return 'V8: (program)';
    return `V8: native ${functionName || '(anonymous)'}`.slice(0, 60);
  }
  if (url.startsWith('node:')) return 'node: core';
  const p = url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : url;
  const nm = p.lastIndexOf('/node_modules/');
  if (nm !== -1) {
    const parts = p.slice(nm + '/node_modules/'.length).split('/');
    return `npm: ${parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  if (p.startsWith(root)) {
    const rel = path.relative(root, p);
    return `intake: ${rel.split('/').slice(0, 2).join('/')}`;
  }
  return p;
}

function frameName(n: ProfileNode, root: string): string {
  const { functionName, url, lineNumber } = n.callFrame;
  let where = url;
  if (url.startsWith('file://')) {
    const p = decodeURIComponent(new URL(url).pathname);
    const nm = p.lastIndexOf('/node_modules/');
    where = nm !== -1 ? p.slice(nm + '/node_modules/'.length) : path.relative(root, p);
  }
  return `${functionName || '(anonymous)'} ${where ? `${where}:${lineNumber + 1}` : ''}`.trim();
}

/**
 * Summarises the samples of a profile that fall in [endTime - fromEndMs - windowMs, endTime - fromEndMs]
 * (the measured phase: the process keeps running a little after it, until it is stopped).
 */
export function summariseProfile(
  file: string,
  root: string,
  opts: { windowMs: number; fromEndMs: number; top?: number },
): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const top = opts.top ?? 25;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of profile.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const windowEnd = profile.endTime - opts.fromEndMs * 1000;
  const windowStart = windowEnd - opts.windowMs * 1000;

  const selfUs = new Map<number, number>();
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    // A sample's time is the delta to the next one.
    const dt = (profile.timeDeltas[i + 1] ?? 0) > 0 ? profile.timeDeltas[i + 1]! : 0;
    if (t < windowStart || t > windowEnd) continue;
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + dt);
  }

  const areas = new Map<string, number>();
  const selfFns = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const n = byId.get(id)!;
    const area = areaOf(n.callFrame.url, n.callFrame.functionName, root);
    if (area === '(idle)') {
      idle += us;
      continue;
    }
    total += us;
    areas.set(area, (areas.get(area) ?? 0) + us);
    const name = frameName(n, root);
    selfFns.set(name, (selfFns.get(name) ?? 0) + us);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!;
      const a = areaOf(f.callFrame.url, f.callFrame.functionName, root);
      if (!(
        a.startsWith('intake:') || /^npm: (@mikro-orm|pg|pg-boss|express|zod|ulid|@ts-rest|pino|kysely|knex)/.test(a)
      ))
        continue;
      const fname = frameName(f, root);
      if (seen.has(fname)) continue;
      seen.add(fname);
      inclusive.set(fname, (inclusive.get(fname) ?? 0) + us);
    }
  }
  const rows = (m: Map<string, number>, key: 'area' | 'fn') =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => ({
        [key]: k,
        ms: Math.round(us / 1000),
        pct: Math.round((1000 * us) / Math.max(1, total)) / 10,
      }));
  return {
    file,
    windowMs: opts.windowMs,
    sampledMs: Math.round(total / 1000),
    selfByArea: rows(areas, 'area') as ProfileSummary['selfByArea'],
    topSelf: rows(selfFns, 'fn') as ProfileSummary['topSelf'],
    topInclusive: rows(inclusive, 'fn') as ProfileSummary['topInclusive'],
    idleMs: Math.round(idle / 1000),
  };
}
