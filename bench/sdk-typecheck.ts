/**
 * SDK type-check cost: `node bench/sdk-typecheck.ts [--runs 5]`.
 *
 * Builds the SDK as it is published (sdk/tsconfig.build.json, the `npm run build:sdk` build, declarations only)
 * into a scratch npm package `@intake/sdk` (sdk/package.json, its dependencies linked from node_modules), writes
 * a ~20-line program using it beside it (a client, createForm, listSubmissions, verifyWebhook narrowed by
 * `type`) and runs `tsc --strict --exactOptionalPropertyTypes --noEmit --extendedDiagnostics` on it N times,
 * then N times more with `--skipLibCheck` (what `tsc --init` sets). Types, instantiations and memory are the
 * same every run; check and total time follow the machine (median and worst of the runs).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

const HELP = `Usage: node bench/sdk-typecheck.ts [options]

Type-check cost of a small program using the built SDK (tsc --strict --exactOptionalPropertyTypes).

Options:
  --runs N      tsc runs per variant; median and worst time are reported (default 5)
  --root DIR    build the SDK of another checkout (e.g. an earlier commit's \`git archive\`), with this one's
                node_modules; default this checkout
  --keep        keep the scratch folder and print its path
  --no-save     do not write bench/results/sdk-typecheck-<date>.json
  -h, --help    this help`;

const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    root: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'no-save': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opts.help) {
  console.log(HELP);
  process.exit(0);
}
const RUNS = Number(opts.runs);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error('--runs must be a positive integer');
const SDK_ROOT = path.resolve(opts.root ?? ROOT);

/** What a user writes in their first minutes: typed calls and a receiver narrowing the event union. */
const PROGRAM = `import { createClient, IntakeError, verifyWebhook } from '@intake/sdk';

const intake = createClient({ baseUrl: 'https://intake.example.com', token: process.env.INTAKE_TOKEN ?? '' });

export async function setUp(): Promise<string[]> {
  const form = (await intake.ok.createForm({ body: { name: 'Contact', notification_emails: ['me@example.com'] } })).data;
  const page = await intake.ok.listSubmissions({ params: { form: form.id }, query: { per_page: 50 } });
  const emails = page.data.map((s) => String(s.payload['email'] ?? '')).filter((e) => e.length > 0);
  const res = await intake.getForm({ params: { form: form.id } });
  if (res.status === 404) throw new IntakeError(res);
  return [res.status === 200 ? res.body.data.name : res.body.error, ...emails];
}

export function receive(secret: string, headers: Record<string, string>, body: string): string {
  const event = verifyWebhook(secret, headers, body);
  switch (event.type) {
    case 'submission.created':
      return \`\${event.form_name}: \${event.submission_id} \${event.files.length} files\`;
    case 'submission.updated':
      return \`\${event.submission_id} by \${event.actor?.name ?? 'a rule'}\`;
    case 'submission.spam':
      return event.spam_reason;
    default:
      return event.type;
  }
}
`;

type Figures = {
  files: number;
  linesOfDefinitions: number;
  types: number;
  instantiations: number;
  memoryKb: number;
  checkSeconds: number;
  totalSeconds: number;
};

function run(cmd: string, args: string[], cwd: string) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** The figures of one `--extendedDiagnostics` report. */
function parseDiagnostics(out: string): Figures {
  const field = (name: string) => {
    const m = new RegExp(`^${name}:\\s+([\\d.]+)(K|s)?\\s*$`, 'm').exec(out);
    if (!m) throw new Error(`tsc printed no "${name}":\n${out}`);
    return Number(m[1]);
  };
  return {
    files: field('Files'),
    linesOfDefinitions: field('Lines of Definitions'),
    types: field('Types'),
    instantiations: field('Instantiations'),
    memoryKb: field('Memory used'),
    checkSeconds: field('Check time'),
    totalSeconds: field('Total time'),
  };
}

function linesOf(file: string): number {
  return fs.readFileSync(file, 'utf8').split('\n').length;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

function main() {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'intake-sdk-typecheck-'));
  try {
    const pkg = path.join(scratch, 'node_modules', '@intake', 'sdk');
    fs.mkdirSync(pkg, { recursive: true });
    const manifest = JSON.parse(fs.readFileSync(path.join(SDK_ROOT, 'sdk/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    fs.copyFileSync(path.join(SDK_ROOT, 'sdk/package.json'), path.join(pkg, 'package.json'));
    // What `npm install @intake/sdk` brings: its dependencies, and the user's @types/node.
    for (const dep of [...Object.keys(manifest.dependencies), '@types/node']) {
      const to = path.join(scratch, 'node_modules', dep);
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.symlinkSync(path.join(ROOT, 'node_modules', dep), to, 'dir');
    }

    process.stderr.write('sdk-typecheck: building the SDK declarations\n');
    const buildStarted = Date.now();
    const build = run(
      process.execPath,
      [TSC, '-p', 'sdk/tsconfig.build.json', '--emitDeclarationOnly', '--outDir', path.join(pkg, 'dist')],
      SDK_ROOT,
    );
    if (build.status !== 0) throw new Error(`the SDK build failed:\n${build.out}`);
    const buildSeconds = Math.round((Date.now() - buildStarted) / 100) / 10;

    fs.writeFileSync(path.join(scratch, 'package.json'), '{ "type": "module", "private": true }\n');
    fs.writeFileSync(path.join(scratch, 'program.ts'), PROGRAM);
    const flags = [
      '--strict',
      '--exactOptionalPropertyTypes',
      '--noEmit',
      '--extendedDiagnostics',
      '--target',
      'ES2023',
      '--module',
      'NodeNext',
      '--moduleResolution',
      'NodeNext',
    ];
    // The package's declarations: all it ships, and those a program importing it loads.
    const dist = path.join(pkg, 'dist');
    const listed = run(
      process.execPath,
      [TSC, ...flags.filter((f) => f !== '--extendedDiagnostics'), '--listFilesOnly', 'program.ts'],
      scratch,
    );
    const loaded = new Set(
      listed.out.split('\n').map((f) => fs.realpathSync.native(path.resolve(scratch, f.trim() || '.'))),
    );
    const declarations = fs.globSync('**/*.d.ts', { cwd: dist }).sort();
    const measure = (files: string[]) => ({
      files: files.length,
      lines: files.reduce((n, f) => n + linesOf(path.join(dist, f)), 0),
      bytes: files.reduce((n, f) => n + fs.statSync(path.join(dist, f)).size, 0),
    });
    const loadedDeclarations = declarations.filter((f) => loaded.has(fs.realpathSync.native(path.join(dist, f))));
    const sdkDts = {
      shipped: measure(declarations),
      loaded: {
        ...measure(loadedDeclarations),
        largest: loadedDeclarations
          .map((f) => ({ file: f, bytes: fs.statSync(path.join(dist, f)).size }))
          .sort((a, b) => b.bytes - a.bytes)
          .slice(0, 5),
      },
    };

    const variants = { full: [] as string[], skipLibCheck: ['--skipLibCheck'] };
    const results: Record<string, Figures & { checkSecondsRuns: number[]; totalSecondsRuns: number[] }> = {};
    for (const [name, extra] of Object.entries(variants)) {
      const runs: Figures[] = [];
      for (let i = 0; i < RUNS; i++) {
        const r = run(process.execPath, [TSC, ...flags, ...extra, 'program.ts'], scratch);
        if (r.status !== 0) throw new Error(`tsc found errors in the program (${name}):\n${r.out}`);
        runs.push(parseDiagnostics(r.out));
        process.stderr.write(
          `sdk-typecheck: ${name} run ${i + 1}: check ${runs.at(-1)!.checkSeconds} s, total ${runs.at(-1)!.totalSeconds} s\n`,
        );
      }
      const first = runs[0]!;
      const checks = runs.map((f) => f.checkSeconds);
      const totals = runs.map((f) => f.totalSeconds);
      results[name] = {
        ...first,
        memoryKb: median(runs.map((f) => f.memoryKb)),
        checkSeconds: median(checks),
        totalSeconds: median(totals),
        checkSecondsRuns: checks,
        totalSecondsRuns: totals,
      };
    }

    const report = {
      benchmark: 'sdk-typecheck',
      at: new Date().toISOString(),
      command: ['node bench/sdk-typecheck.ts', ...process.argv.slice(2)].join(' '),
      machine: {
        cpus: os.cpus().length,
        model: os.cpus()[0]?.model ?? null,
        node: process.version,
        loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100),
      },
      typescript: (
        JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/typescript/package.json'), 'utf8')) as {
          version: string;
        }
      ).version,
      sdkRoot: SDK_ROOT === ROOT ? '.' : SDK_ROOT,
      flags,
      programLines: PROGRAM.trimEnd().split('\n').length,
      buildSeconds,
      sdkDts,
      runs: RUNS,
      results,
    };
    console.log(JSON.stringify(report, null, 2));
    process.stderr.write(
      `sdk-typecheck: the program loads ${sdkDts.loaded.files} of the package's ${sdkDts.shipped.files} .d.ts files, ` +
        `${sdkDts.loaded.lines} lines (${Math.round(sdkDts.loaded.bytes / 1024)} kB)\n`,
    );
    for (const [name, r] of Object.entries(results)) {
      process.stderr.write(
        `sdk-typecheck: ${name}: ${r.files} files, ${r.linesOfDefinitions} lines of .d.ts, ${r.types} types, ` +
          `${r.instantiations} instantiations, ${Math.round(r.memoryKb / 1024)} MB; check median ${r.checkSeconds} s ` +
          `(worst ${Math.max(...r.checkSecondsRuns)} s), total median ${r.totalSeconds} s (worst ${Math.max(...r.totalSecondsRuns)} s)\n`,
      );
    }
    if (!opts['no-save']) {
      const day = new Date().toISOString().slice(0, 10);
      let file = path.join(ROOT, 'bench', 'results', `sdk-typecheck-${day}.json`);
      for (let n = 2; fs.existsSync(file); n++) {
        file = path.join(ROOT, 'bench', 'results', `sdk-typecheck-${day}-${n}.json`);
      }
      fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
      process.stderr.write(`sdk-typecheck: wrote ${path.relative(ROOT, file)}\n`);
    }
  } finally {
    if (opts.keep) process.stderr.write(`sdk-typecheck: scratch kept at ${scratch}\n`);
    else fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main();
