/**
 * Runs the benchmarks (DESIGN.md "Performance"): `node bench/run.ts [name…] [options]`, also `npm run bench`
 * and `make bench`. Each benchmark starts what it needs (embedded Postgres, or DATABASE_URL), runs its
 * targets, prints a summary and writes bench/results/<name>-<date>.json. Everything it started is
 * stopped on exit, Ctrl-C included.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { INGEST_SHAPES, type BenchOptions, type IngestShape } from './lib/bench-options.ts';
import { cleanupAll, installSignalHandlers, Interrupted } from './lib/cleanup.ts';

type Benchmark = { run(opts: BenchOptions): Promise<unknown>; print(report: unknown): void };

const BENCHMARKS: Record<string, () => Promise<Benchmark>> = {
  ingest: async () => {
    const m = await import('./ingest.ts');
    return { run: m.default, print: m.printIngest as (r: unknown) => void };
  },
};

const HELP = `Usage: node bench/run.ts [benchmark…] [options]

Benchmarks: ${Object.keys(BENCHMARKS).join(', ')} (default: all, each in every shape)

Options:
  --connections N   concurrent connections (default 50)
  --warmup S        warm-up seconds per target, excluded from the numbers (default 10)
  --duration S      measured seconds per target (default 25)
  --rounds N        run all targets N times, alternating; report the median round (default 1)
  --only TARGET     run a single target (e.g. intake, baseline)
  --shape S[,S…]    ingest's form: default (a contact form), admission (the same with a unique rule on the
                    e-mail and max_submissions out of reach); a list runs each in turn (default: default when
                    a benchmark is named, every shape otherwise, as make bench runs it)
  --cpu-prof        profile the servers (node --cpu-prof) and summarise where CPU time goes
  --pg-stats        collect pg_stat_statements (embedded Postgres is restarted with it preloaded)
  --no-save         do not write bench/results/<name>-<date>.json
  --verbose         echo the servers' output
Environment: DATABASE_URL (use that server instead of an embedded Postgres; a fresh database is
created on it and dropped afterwards), DATABASE_POOL_SIZE (Intake's and the baseline's pool, default 10).`;

const RESULTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');

/** `ingest` for the default shape, `ingest-admission` for another: bench/results keeps the latest of each. */
function resultFile(bench: string, shape: IngestShape): string {
  const name = shape === 'default' ? bench : `${bench}-${shape}`;
  const day = new Date().toISOString().slice(0, 10);
  let file = path.join(RESULTS, `${name}-${day}.json`);
  for (let n = 2; fs.existsSync(file); n++) file = path.join(RESULTS, `${name}-${day}-${n}.json`);
  return file;
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      connections: { type: 'string', default: '50' },
      warmup: { type: 'string', default: '10' },
      duration: { type: 'string', default: '25' },
      rounds: { type: 'string', default: '1' },
      only: { type: 'string' },
      shape: { type: 'string' },
      'cpu-prof': { type: 'boolean', default: false },
      'pg-stats': { type: 'boolean', default: false },
      'no-save': { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const names = positionals.length ? positionals : Object.keys(BENCHMARKS);
  const unknown = names.filter((n) => !BENCHMARKS[n]);
  if (unknown.length) {
    console.error(`bench: unknown benchmark ${unknown.join(', ')}; available: ${Object.keys(BENCHMARKS).join(', ')}`);
    return 2;
  }
  const int = (s: string, what: string) => {
    const n = Number(s);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${what} must be a positive integer`);
    return n;
  };
  const shapes = values.shape
    ? values.shape.split(',').map((x) => x.trim())
    : positionals.length
      ? ['default']
      : [...INGEST_SHAPES];
  const badShape = shapes.find((x) => !(INGEST_SHAPES as readonly string[]).includes(x));
  if (badShape !== undefined) {
    console.error(`bench: unknown shape "${badShape}"; shapes: ${INGEST_SHAPES.join(', ')}`);
    return 2;
  }
  const opts: Omit<BenchOptions, 'shape'> = {
    connections: int(values.connections, 'connections'),
    warmupSeconds: int(values.warmup, 'warmup'),
    durationSeconds: int(values.duration, 'duration'),
    rounds: int(values.rounds, 'rounds'),
    cpuProf: values['cpu-prof'],
    pgStats: values['pg-stats'],
    verbose: values.verbose,
    only: values.only ?? null,
    command: ['node bench/run.ts', ...process.argv.slice(2)].join(' '),
  };

  installSignalHandlers();
  let failed = false;
  for (const name of names) {
    for (const shape of shapes as IngestShape[]) {
      const label = shape === 'default' ? name : `${name} (shape ${shape})`;
      try {
        const bench = await BENCHMARKS[name]!();
        const report = await bench.run({ ...opts, shape });
        await cleanupAll();
        bench.print(report);
        if (!values['no-save']) {
          fs.mkdirSync(RESULTS, { recursive: true });
          const file = resultFile(name, shape);
          fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
          console.log(`\nresults: ${path.relative(process.cwd(), file)}`);
        }
      } catch (err) {
        await cleanupAll();
        if (err instanceof Interrupted) return 130;
        console.error(`bench: ${label} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        failed = true;
      }
    }
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  async (err: unknown) => {
    console.error(`bench: ${err instanceof Error ? err.message : String(err)}`);
    await cleanupAll();
    process.exit(1);
  },
);
