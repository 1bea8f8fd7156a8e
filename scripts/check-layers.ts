/**
 * The layering check, run by `npm run check` (`make check`) and test/platform/layering.test.ts: `node
 * scripts/check-layers.ts [root]`. It reads every import of the project's TypeScript — static, dynamic,
 * type-only and re-exports alike, since a type import ties a module to another's shape just as much — and
 * fails on an import cycle or on an import that reaches up a layer (RULES below).
 *
 * Layers, from the ground up: contract/; server/ (infra/, then the domain's rules in domain/, then what
 * binds them to the world — operations/, transports/, workers/ — and main.ts, which composes it all)
 * beside sdk/; cli/, bench/ and scripts/ on top.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where the project's own modules live; a cycle is looked for among them. */
const SOURCE_DIRS = ['contract', 'server', 'sdk', 'cli', 'bench', 'scripts'];

/** A pattern ending in `/` is a folder and everything under it; any other is one file. */
type Pattern = string;
type Rule = { name: string; from: Pattern[]; except?: Pattern[]; forbid: Pattern[]; allow?: Pattern[] };

const EVERYTHING: Pattern[] = ['contract/', 'server/', 'sdk/', 'cli/', 'bench/', 'scripts/', 'test/'];
/** What binds the domain to the world, and the composition roots: above every rule. */
const ABOVE_DOMAIN: Pattern[] = [
  'server/operations/',
  'server/transports/',
  'server/workers/',
  'server/main.ts',
  'server/admin-runtime.ts',
];
const TOP: Pattern[] = ['cli/', 'bench/', 'scripts/', 'test/'];

export const RULES: Rule[] = [
  {
    name: 'the contract is the ground: it imports nothing of the project',
    from: ['contract/'],
    forbid: EVERYTHING,
    allow: ['contract/'],
  },
  {
    name: 'a migration is frozen history: it imports nothing outside the migrations (it must not change when the domain does)',
    from: ['server/infra/db/migrations/'],
    forbid: EVERYTHING,
    allow: ['server/infra/db/migrations/'],
  },
  {
    name: 'infrastructure (database, queue, storage, mail, outbound HTTP, CAPTCHA, metrics) knows no rules and no callers',
    from: ['server/infra/'],
    except: ['server/infra/ai/'],
    forbid: ['server/domain/', 'server/infra/ai/', 'server/context.ts', ...ABOVE_DOMAIN],
    allow: ['server/infra/ai/provider.ts'],
  },
  {
    name: 'outage classification sits below storage, database and domain: it imports nothing of the project',
    from: ['server/infra/unreachable-errors.ts'],
    forbid: EVERYTHING,
  },
  {
    name: 'the AI provider interface (server/infra/ai/provider.ts) imports only the contract, so the domain can depend on it',
    from: ['server/infra/ai/provider.ts'],
    forbid: EVERYTHING,
    allow: ['contract/'],
  },
  {
    // The domain asks AI through the provider on the context; the providers are built by main.ts.
    name: 'the domain imports no transport, no operation, no worker, no composition root and no AI implementation',
    from: ['server/domain/'],
    forbid: ['server/infra/ai/', ...ABOVE_DOMAIN, ...TOP, 'sdk/'],
    allow: ['server/infra/ai/provider.ts'],
  },
  {
    name: 'callers (operations, transports, workers, the CLI) reach data through the domain, never the database',
    from: ['server/operations/', 'server/transports/', 'server/workers/', 'cli/'],
    forbid: ['server/infra/db/'],
  },
  {
    name: 'the server imports nothing from the SDK, the CLI, benchmarks, scripts or tests',
    from: ['server/'],
    forbid: ['sdk/', ...TOP],
  },
  {
    name: 'only the CLI, benchmarks and tests start the server (server/main.ts)',
    from: ['server/'],
    except: ['server/main.ts'],
    forbid: ['server/main.ts'],
  },
  { name: 'the SDK stands on the contract alone', from: ['sdk/'], forbid: ['server/', ...TOP] },
  {
    // The API commands and `intake listen` reach Intake through the SDK, as any integrator's script does.
    name: 'the CLI reaches Intake through the SDK: only the commands that run or administer Intake itself import server/',
    from: ['cli/'],
    except: ['cli/server-commands.ts', 'cli/admin.ts', 'cli/dev.ts'],
    forbid: ['server/'],
  },
];

/**
 * Known cycles, each being removed by its owner: a cycle passes while all its files are in one entry
 * (`{ files: [...], why: '...' }`). Remove an entry once its cycle is gone (the check says so).
 */
export const KNOWN_CYCLES: Array<{ files: string[]; why: string }> = [];

/** Known upward imports, each to be removed: an import listed here passes. */
export const KNOWN_UPWARD: Array<{ from: string; to: string; why: string }> = [];

const matches = (file: string, pattern: Pattern) =>
  pattern.endsWith('/') ? file.startsWith(pattern) : file === pattern;
const matchesAny = (file: string, patterns: Pattern[] = []) => patterns.some((p) => matches(file, p));

/** Every project .ts file under `dirs` (relative, with `/`), build output and dependencies left out. */
function sourceFiles(root: string, dirs: string[]): string[] {
  const files: string[] = [];
  for (const dir of dirs) {
    if (!fs.existsSync(path.join(root, dir))) continue;
    for (const entry of fs.readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })) {
      const file = path.posix.join(dir, entry.split(path.sep).join('/'));
      if (file.endsWith('.ts') && !/(^|\/)(node_modules|dist)\//.test(file)) files.push(file);
    }
  }
  return files.sort();
}

/** Each file's imports of project files, resolved relative to the root. Packages are not the project's. */
export function importGraph(root: string, dirs = SOURCE_DIRS): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root, dirs)) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(path.join(root, file), 'utf8'), true, true);
    const targets = importedFiles
      .filter((i) => i.fileName.startsWith('.'))
      .map((i) => path.posix.normalize(path.posix.join(path.posix.dirname(file), i.fileName)));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected components of more than one file, or of a file that imports itself (Tarjan). */
function cycleGroups(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || graph.get(v)!.includes(v)) groups.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return groups;
}

/** One shortest cycle through the group's first file, to show how the group's files import each other. */
function exampleCycle(graph: Map<string, string[]>, group: string[]): string[] {
  const start = group[0]!;
  const inGroup = new Set(group);
  const parent = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const w of graph.get(queue[i]!) ?? []) {
      if (w === start) {
        const chain: string[] = [];
        for (let v = queue[i]!; v !== start; v = parent.get(v)!) chain.unshift(v);
        return [start, ...chain, start];
      }
      if (inGroup.has(w) && !parent.has(w)) {
        parent.set(w, queue[i]!);
        queue.push(w);
      }
    }
  }
  return group;
}

export type Cycle = { files: string[]; example: string[] };
export type Upward = { from: string; to: string; rule: string };
export type LayerReport = {
  files: number;
  imports: number;
  /** Cycles and upward imports that fail the check. */
  cycles: Cycle[];
  upward: Upward[];
  /** Found but allowed (KNOWN_CYCLES, KNOWN_UPWARD), and allowances that no longer match anything. */
  known: string[];
  stale: string[];
};

export function checkLayers(root = ROOT, known = { cycles: KNOWN_CYCLES, upward: KNOWN_UPWARD }): LayerReport {
  const graph = importGraph(root);
  const report: LayerReport = { files: graph.size, imports: 0, cycles: [], upward: [], known: [], stale: [] };
  const usedCycles = new Set<number>();
  const usedUpward = new Set<number>();

  for (const [from, targets] of graph) {
    report.imports += targets.length;
    for (const to of targets) {
      for (const rule of RULES) {
        if (
          !matchesAny(from, rule.from) ||
          matchesAny(from, rule.except) ||
          !matchesAny(to, rule.forbid) ||
          matchesAny(to, rule.allow)
        )
          continue;
        const allowed = known.upward.findIndex((k) => k.from === from && k.to === to);
        if (allowed >= 0) {
          usedUpward.add(allowed);
          report.known.push(`upward import ${from} → ${to} (${known.upward[allowed]!.why})`);
        } else report.upward.push({ from, to, rule: rule.name });
        break; // one broken rule is enough to name an import
      }
    }
  }

  for (const files of cycleGroups(graph)) {
    const cycle = { files, example: exampleCycle(graph, files) };
    const allowed = known.cycles.findIndex((k) => files.every((f) => k.files.includes(f)));
    if (allowed >= 0) {
      usedCycles.add(allowed);
      report.known.push(`cycle ${cycle.example.join(' → ')} (${known.cycles[allowed]!.why})`);
    } else report.cycles.push(cycle);
  }

  known.cycles.forEach((k, i) => usedCycles.has(i) || report.stale.push(`KNOWN_CYCLES: ${k.files.join(', ')}`));
  known.upward.forEach((k, i) => usedUpward.has(i) || report.stale.push(`KNOWN_UPWARD: ${k.from} → ${k.to}`));
  return report;
}

function main(): number {
  const report = checkLayers(path.resolve(process.argv[2] ?? ROOT));
  for (const k of report.known) console.error(`layers: known, allowed until fixed: ${k}`);
  for (const s of report.stale)
    console.error(`layers: allowance no longer needed, remove it from scripts/check-layers.ts: ${s}`);
  for (const c of report.cycles) {
    const more = c.files.length > c.example.length - 1 ? ` (all of ${c.files.join(', ')} import each other)` : '';
    console.error(`layers: import cycle ${c.example.join(' → ')}${more}`);
  }
  for (const u of report.upward) console.error(`layers: upward import ${u.from} → ${u.to}: ${u.rule}`);
  const failures = report.cycles.length + report.upward.length;
  console.log(
    `layers: ${report.files} files, ${report.imports} imports: ${failures ? `${report.cycles.length} cycle(s), ${report.upward.length} upward import(s)` : 'no cycle, no upward import'}`,
  );
  return failures ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main();
