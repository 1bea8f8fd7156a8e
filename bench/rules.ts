/**
 * Rule-condition benchmark: `node bench/rules.ts [--submissions 2000] [--warmup 500] [--rounds 5]`.
 *
 * 50 rules of 10 conditions each (the limits: every op of the grammar, each rule with a `matches`, an `in`, a
 * `gt` and a `contains`; two rules in three `all`, the rest `any`), checked by the contract's schema, then
 * evaluated on ~300-byte contact-form payloads with a list field. CPU time (process.cpuUsage, user + system)
 * per submission after a warm-up, the median of the rounds, for: compiling the 50 rules and evaluating them
 * (what a submission costs when its form's rules are read from the database), evaluating precompiled rules,
 * and tracing every condition (a dry run, no short-circuit). Apart: RE2 compiling one pattern uncached, which
 * compiling the rules pays once per pattern and process. Target: compile + evaluate < 1 ms CPU per submission.
 * No database: the grammar is pure computation.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compilePattern, Condition, CONDITION_OPS } from '../contract/conditions.ts';
import {
  compileConditions,
  matches,
  traceConditions,
  type CompiledConditions,
  type ConditionSubject,
} from '../server/domain/rules/conditions.ts';
import { COMPANIES, FIRST, LAST, SENTENCES, SUBJECTS } from './lib/contact-form.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RULES = 50;
const CONDITIONS = 10;
const TARGET_US = 1000;

const HELP = `Usage: node bench/rules.ts [options]

${RULES} rules × ${CONDITIONS} conditions evaluated per submission; CPU µs per submission.

Options:
  --submissions N   submissions per round (default 2000)
  --warmup N        submissions run before measuring, per measurement (default 500)
  --rounds N        rounds per measurement; the median is reported (default 5)
  --no-save         do not write bench/results/rules-<date>.json
  -h, --help        this help`;

const { values: opts } = parseArgs({
  options: {
    submissions: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '5' },
    'no-save': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opts.help) {
  console.log(HELP);
  process.exit(0);
}
const positive = (s: string, what: string) => {
  const n = Number(s);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${what} must be a positive integer`);
  return n;
};
const N = positive(opts.submissions, 'submissions');
const WARMUP = positive(opts.warmup, 'warmup');
const ROUNDS = positive(opts.rounds, 'rounds');

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const rand = rng(7);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;

const INTERESTS = ['pricing', 'api', 'integrations', 'security', 'onboarding', 'billing', 'uploads', 'sso'];
const COUNTRIES = ['FR', 'DE', 'US', 'GB', 'NO', 'JP', 'BR', 'IN'];
const DOMAINS = ['example.com', 'acme.io', 'globex.com', 'initech.net', 'mail.example.org'];

/** A contact form's submission: ~300 bytes of payload with a list field. */
function submission(i: number): ConditionSubject {
  const first = pick(FIRST);
  const last = pick(LAST);
  const interests = [pick(INTERESTS), pick(INTERESTS)];
  return {
    payload: {
      name: `${first} ${last}`,
      email: `${first}.${last}.${i}@${pick(DOMAINS)}`.toLowerCase(),
      phone: rand() < 0.7 ? `+1 555 ${1000 + Math.floor(rand() * 9000)}` : '',
      company: pick(COMPANIES),
      country: pick(COUNTRIES),
      subject: pick(SUBJECTS),
      message: pick(SENTENCES),
      interests,
      budget: String(500 * (1 + Math.floor(rand() * 20))),
      seats: Math.floor(rand() * 200),
      consent: 'yes',
    },
    category: pick(['sales', 'support', 'feedback', 'partnership', null]),
    ai_score: Math.round(rand() * 100) / 100,
    spam_reason: null,
    referrer: rand() < 0.5 ? 'https://www.example.com/contact?utm_source=ads' : 'https://www.example.com/contact',
    source: rand() < 0.9 ? 'form' : 'api',
    status: 'processed',
  };
}

const WORDS = ['invoice', 'refund', 'quote', 'call', 'demo', 'contract', 'trial', 'discount', 'GDPR', 'export'];

/** Rule `r`'s conditions: a matches, an in, a gt and a contains, then six of the other ops, varied by rule. */
function rule(r: number): { mode: 'all' | 'any'; conditions: unknown[] } {
  const w = (k: number) => WORDS[(r + k) % WORDS.length]!;
  const fixed = [
    { field: 'message', op: 'matches', value: `\\b(${w(0)}|${w(1)}|${w(2)})s?\\b` },
    { field: 'interests', op: 'in', value: [INTERESTS[r % 8]!, INTERESTS[(r + 3) % 8]!] },
    { field: 'budget', op: 'gt', value: 1000 + 250 * (r % 20) },
    { field: 'subject', op: 'contains', value: ['pricing', 'support', 'quote', 'partnership', 'demo'][r % 5]! },
  ];
  const others = [
    { field: 'email', op: 'ends_with', value: `@${DOMAINS[r % DOMAINS.length]}` },
    { field: 'company', op: 'equals', value: COMPANIES[r % COMPANIES.length]! },
    { field: 'country', op: 'not_in', value: COUNTRIES.slice(r % 4, (r % 4) + 3) },
    { field: 'message', op: 'not_contains', value: 'unsubscribe' },
    { field: 'name', op: 'starts_with', value: FIRST[r % FIRST.length]! },
    { field: 'phone', op: 'exists' },
    { field: 'fax', op: 'not_exists' },
    { field: 'seats', op: 'gte', value: String(10 * (r % 10)) },
    { field: '@ai_score', op: 'lt', value: 0.5 },
    { field: '@category', op: 'not_equals', value: 'feedback' },
    { field: '@referrer', op: 'matches', value: '[?&]utm_source=(ads|mail)' },
    { field: 'seats', op: 'lte', value: 150 },
    { field: '@source', op: 'equals', value: 'form' },
  ];
  const chosen = Array.from({ length: CONDITIONS - fixed.length }, (_, k) => others[(r * 5 + k) % others.length]!);
  // Half the rules test the RE2 pattern first, the others last: `all` stops at the first condition that fails.
  const conditions = r % 2 === 0 ? [...fixed, ...chosen] : [...chosen, ...fixed.reverse()];
  return { mode: r % 3 === 2 ? 'any' : 'all', conditions };
}

const rules = Array.from({ length: RULES }, (_, r) => rule(r));
for (const [r, { conditions }] of rules.entries())
  for (const c of conditions) {
    const parsed = Condition.safeParse(c);
    if (!parsed.success) throw new Error(`rule ${r}: ${JSON.stringify(c)}: ${parsed.error.message}`);
  }
const opsUsed = new Set(rules.flatMap((r) => r.conditions.map((c) => (c as { op: string }).op)));
const missing = CONDITION_OPS.filter((op) => !opsUsed.has(op));
if (missing.length) throw new Error(`ops not covered: ${missing.join(', ')}`);

const subjects = Array.from({ length: 500 }, (_, i) => submission(i));
const payloadBytes = Math.round(
  subjects.reduce((sum, s) => sum + Buffer.byteLength(JSON.stringify(s.payload)), 0) / subjects.length,
);
type Stored = Parameters<typeof compileConditions>[0];
const stored = rules.map((r) => ({ mode: r.mode, conditions: r.conditions as Stored }));
const precompiled: Array<{ mode: 'all' | 'any'; compiled: CompiledConditions }> = stored.map((r) => ({
  mode: r.mode,
  compiled: compileConditions(r.conditions),
}));

let sink = 0;
const KINDS = {
  compileAndEvaluate: (subject: ConditionSubject) => {
    for (const r of stored) if (matches(compileConditions(r.conditions), subject, r.mode)) sink++;
  },
  evaluateOnly: (subject: ConditionSubject) => {
    for (const r of precompiled) if (matches(r.compiled, subject, r.mode)) sink++;
  },
  traceEveryCondition: (subject: ConditionSubject) => {
    for (const r of precompiled) sink += traceConditions(r.compiled, subject).length;
  },
};

/** CPU µs per call of `fn`, over `count` subjects. */
function cpuMicros(fn: (subject: ConditionSubject) => void, count: number): number {
  const started = process.cpuUsage();
  for (let i = 0; i < count; i++) fn(subjects[i % subjects.length]!);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / count;
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function main() {
  const loadBefore = os.loadavg();
  const results: Record<string, { perSubmissionUs: number; roundsUs: number[] }> = {};
  for (const [name, fn] of Object.entries(KINDS)) {
    cpuMicros(fn, WARMUP);
    const rounds = Array.from({ length: ROUNDS }, () => round1(cpuMicros(fn, N)));
    results[name] = { perSubmissionUs: median(rounds), roundsUs: rounds };
    process.stderr.write(`rules: ${name}: ${median(rounds)} µs CPU per submission (rounds ${rounds.join(', ')})\n`);
  }

  // RE2 uncached: every pattern of the rules compiled anew.
  const patterns = [
    ...new Set(
      rules.flatMap((r) =>
        (r.conditions as Array<{ op: string; value?: unknown }>).flatMap((c) =>
          c.op === 'matches' ? [c.value as string] : [],
        ),
      ),
    ),
  ];
  for (const p of patterns) sink += compilePattern(p).programSize();
  const re2Started = process.cpuUsage();
  const re2Rounds = 20;
  for (let k = 0; k < re2Rounds; k++) for (const p of patterns) sink += compilePattern(p).programSize();
  const re2Used = process.cpuUsage(re2Started);
  const re2PerPatternUs = round1((re2Used.user + re2Used.system) / (re2Rounds * patterns.length));

  let fired = 0;
  for (const s of subjects) for (const r of precompiled) if (matches(r.compiled, s, r.mode)) fired++;
  const report = {
    benchmark: 'rules',
    at: new Date().toISOString(),
    command: ['node bench/rules.ts', ...process.argv.slice(2)].join(' '),
    machine: {
      cpus: os.cpus().length,
      model: os.cpus()[0]?.model ?? null,
      node: process.version,
      loadavgBefore: loadBefore.map((l) => Math.round(l * 100) / 100),
      loadavgAfter: os.loadavg().map((l) => Math.round(l * 100) / 100),
    },
    rules: RULES,
    conditionsPerRule: CONDITIONS,
    payloadBytes,
    submissionsPerRound: N,
    rounds: ROUNDS,
    results,
    re2: { distinctPatterns: patterns.length, compilePerPatternUs: re2PerPatternUs },
    firedPerSubmission: round1(fired / subjects.length),
    targetUs: TARGET_US,
    met: results.compileAndEvaluate!.perSubmissionUs < TARGET_US,
    sink: sink > 0,
  };
  console.log(JSON.stringify(report, null, 2));
  if (!opts['no-save']) {
    const day = new Date().toISOString().slice(0, 10);
    let file = path.join(ROOT, 'bench', 'results', `rules-${day}.json`);
    for (let n = 2; fs.existsSync(file); n++) file = path.join(ROOT, 'bench', 'results', `rules-${day}-${n}.json`);
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    process.stderr.write(`rules: wrote ${path.relative(ROOT, file)}\n`);
  }
}

main();
