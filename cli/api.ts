import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isAppRoute, type AppRoute } from '@ts-rest/core';
import { type Command, Option } from 'commander';
import { z } from 'zod';
import { contract } from '../contract/index.ts';
import { objectShape, unwrapSchema } from '../contract/schema-shape.ts';
import { createClient, IntakeError } from '../sdk/index.ts';

/**
 * The API commands (`intake forms list`, `intake submissions export …`), one per contract route, through the
 * SDK. Path parameters are positional arguments in path order; every query and body field is an option
 * (`--per-page 50`, `--notification-emails a@x,b@y`, `--settings '{"ai_threshold":0.9}'`). Output is a table
 * for people and, with `--json`, exactly the API's `data` (or its whole body when it has none).
 * Docs: README "The CLI", docs/cli.md.
 */

/** Route key → [resource, verb]. Every contract route has one (a test checks). */
export const COMMANDS: Record<string, [string, string]> = {
  getMe: ['me', ''],
  listForms: ['forms', 'list'],
  getForm: ['forms', 'get'],
  createForm: ['forms', 'create'],
  updateForm: ['forms', 'update'],
  deleteForm: ['forms', 'delete'],
  publishForm: ['forms', 'publish'],
  unpublishForm: ['forms', 'unpublish'],
  restoreForm: ['forms', 'restore'],
  forceDeleteForm: ['forms', 'erase'],
  listFormFields: ['forms', 'fields'],
  suggestFormSchema: ['forms', 'suggest-schema'],
  createErasure: ['erasure', 'create'],
  getErasure: ['erasure', 'show'],
  pruneFormFields: ['forms', 'prune-fields'],
  listSubmissions: ['submissions', 'list'],
  getSubmission: ['submissions', 'get'],
  updateSubmission: ['submissions', 'update'],
  deleteSubmission: ['submissions', 'delete'],
  bulkSubmissions: ['submissions', 'bulk'],
  exportSubmissions: ['submissions', 'export'],
  streamSubmissions: ['listen', ''], // its own command: cli/listen.ts
  downloadSubmissionFile: ['submissions', 'download'],
  listWebhooks: ['webhooks', 'list'],
  getWebhook: ['webhooks', 'get'],
  createWebhook: ['webhooks', 'create'],
  updateWebhook: ['webhooks', 'update'],
  deleteWebhook: ['webhooks', 'delete'],
  replayWebhook: ['webhooks', 'replay'],
  listDeliveries: ['deliveries', 'list'],
  replayDeliveryById: ['deliveries', 'replay'],
  replayDelivery: ['deliveries', 'resend'],
  getAiInsights: ['insights', 'get'],
  regenerateAiInsights: ['insights', 'regenerate'],
  getBillingTeam: ['billing', 'team'],
  getBillingPlan: ['billing', 'plan'],
  getBillingUsage: ['billing', 'usage'],
  getBillingSubscription: ['billing', 'subscription'],
  listInvoices: ['billing', 'invoices'],
  listTokens: ['tokens', 'list'],
  createToken: ['tokens', 'create'],
  revokeToken: ['tokens', 'revoke'],
  getJob: ['jobs', 'get'],
};

/** Each resource's description and examples (shown by `intake <resource> --help`). */
const RESOURCES: Record<string, [string, string[]]> = {
  forms: ['Forms: create, publish, list, trash and restore', ['intake forms create --name "Contact us"', 'intake forms publish frm_…', 'intake forms list --per-page 50 --json']],
  submissions: [
    'Submissions of a form: list, read, change, bulk actions, export, files',
    ['intake submissions list frm_… --folder spam', 'intake submissions bulk frm_… --ids subm_a,subm_b --action mark_not_spam', 'intake submissions export frm_… --format csv -o all.csv'],
  ],
  webhooks: ["A form's webhooks, and bulk replay of their deliveries", ['intake webhooks create frm_… --label CRM --url https://crm.example.com/hook', 'intake webhooks rotate-secret frm_… wh_…', 'intake webhooks replay wh_… --status dead --wait']],
  deliveries: ["A webhook's delivery log, and replay of one delivery", ['intake deliveries list frm_… wh_… --status failed', 'intake deliveries replay whd_…']],
  insights: ['Weekly AI insights of the team (or one form)', ['intake insights get --form frm_…', 'intake insights regenerate --wait']],
  billing: ['Plan, usage, subscription and invoices of the team', ['intake billing usage', 'intake billing invoices --json']],
  tokens: ["API tokens of the caller's family", ['intake tokens create --name ci --abilities forms:read,submissions:read', 'intake tokens revoke tok_…']],
  jobs: ['Background jobs (bulk replay)', ['intake jobs get job_…']],
};

/** Exit status by error class (documented in README "The CLI"). */
export const EXIT = { server: 1, usage: 2, auth: 3, notFound: 4, conflict: 5, rateLimited: 6 } as const;

function exitFor(err: IntakeError): number {
  if (err.status === 401 || err.status === 403 || err.status === 402) return EXIT.auth;
  if (err.status === 404) return EXIT.notFound;
  if (err.status === 409 || err.status === 423) return EXIT.conflict;
  if (err.status === 429) return EXIT.rateLimited;
  if (err.status === 400 || err.status === 413 || err.status === 415) return EXIT.usage;
  return EXIT.server;
}

const HINTS: Record<string, string> = {
  unauthenticated: 'check INTAKE_TOKEN (or run `intake login`)',
  forbidden: 'the token lacks this ability: create one that has it (`intake tokens create --abilities …`)',
  not_found: 'check the id (and that it belongs to your team)',
  rate_limited: 'wait and try again',
  already_running: 'wait for the time given, then try again',
  plan_lacks_ai: 'AI insights need the pro, team or scale plan',
  validation_failed: 'see `--help` for the options',
};

// --- configuration ---------------------------------------------------------------------------------------

export const configPath = () => path.join(process.env.XDG_CONFIG_HOME ?? path.join(os.homedir(), '.config'), 'intake', 'config.json');
type Profiles = { profiles: Record<string, { url: string; token: string }>; current?: string };

function readProfiles(): Profiles {
  try {
    return JSON.parse(fs.readFileSync(configPath(), 'utf8')) as Profiles;
  } catch {
    return { profiles: {} };
  }
}

function writeProfiles(p: Profiles): void {
  fs.mkdirSync(path.dirname(configPath()), { recursive: true, mode: 0o700 });
  fs.writeFileSync(configPath(), `${JSON.stringify(p, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(configPath(), 0o600);
}

/** INTAKE_URL + INTAKE_TOKEN win; otherwise the profile (`--profile`, else the one last logged in). */
export function connection(profile: string | undefined): { url: string; token: string } {
  if (process.env.INTAKE_TOKEN && !profile) return { url: process.env.INTAKE_URL ?? 'http://localhost:3000', token: process.env.INTAKE_TOKEN };
  const saved = readProfiles();
  const name = profile ?? saved.current ?? 'default';
  const found = saved.profiles[name];
  if (!found) throw new UsageError(profile ? `no profile "${profile}" in ${configPath()}` : 'not logged in: set INTAKE_URL and INTAKE_TOKEN, or run `intake login --url … --token …`');
  return found;
}

export class UsageError extends Error {}

// --- options from the contract's schemas -----------------------------------------------------------------

type Kind = 'string' | 'number' | 'boolean' | 'list' | 'json';

function kindOf(s: z.ZodTypeAny): Kind {
  const inner = unwrapSchema(s);
  if (inner instanceof z.ZodNumber) return 'number';
  if (inner instanceof z.ZodBoolean) return 'boolean';
  if (inner instanceof z.ZodArray && !(unwrapSchema(inner.element as z.ZodTypeAny) instanceof z.ZodObject)) return 'list';
  if (inner instanceof z.ZodString || inner instanceof z.ZodEnum || inner instanceof z.ZodLiteral) return 'string';
  return 'json';
}

const flag = (key: string) => key.replace(/_/g, '-');
const camel = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function parseValue(kind: Kind, raw: string, key: string): unknown {
  if (kind === 'number') {
    const n = Number(raw);
    if (raw.trim() === '' || Number.isNaN(n)) throw new UsageError(`--${flag(key)} must be a number`);
    return n;
  }
  if (kind === 'list') return raw.split(',').map((v) => v.trim()).filter(Boolean);
  if (kind === 'json') {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      throw new UsageError(`--${flag(key)} must be JSON, e.g. '{"key":"value"}'`);
    }
  }
  return raw;
}

// --- output ------------------------------------------------------------------------------------------------

export function useColour(stream: NodeJS.WriteStream = process.stdout): boolean {
  return Boolean(stream.isTTY) && !('NO_COLOR' in process.env) && process.env.TERM !== 'dumb';
}
const paint = (code: number, text: string, on: boolean) => (on ? `\u001b[${code}m${text}\u001b[0m` : text);

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

/** "3 minutes ago", "in 2 days", for timestamps in human output. */
export function relative(iso: string, now = Date.now()): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  const units: Array<[number, string]> = [[31_536_000, 'year'], [2_592_000, 'month'], [86_400, 'day'], [3600, 'hour'], [60, 'minute'], [1, 'second']];
  const [size, unit] = units.find(([s]) => Math.abs(seconds) >= s) ?? [1, 'second'];
  const n = Math.round(Math.abs(seconds) / size);
  const text = `${n} ${unit}${n === 1 ? '' : 's'}`;
  return seconds < 0 ? `${text} ago` : seconds === 0 ? 'now' : `in ${text}`;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return ISO.test(value) ? relative(value) : value.replace(/\p{Cc}/gu, ' ');
  if (typeof value === 'object') return JSON.stringify(value).slice(0, 60);
  return String(value);
}

/** Columns of a table: the scalar fields of the first rows (ids first), at most eight. */
function columns(rows: Array<Record<string, unknown>>): string[] {
  const keys: string[] = [];
  for (const row of rows.slice(0, 5)) for (const [k, v] of Object.entries(row)) if (!keys.includes(k) && (v === null || typeof v !== 'object' || k === 'payload')) keys.push(k);
  return keys.sort((a, b) => Number(b === 'id') - Number(a === 'id')).slice(0, 8);
}

export function table(rows: Array<Record<string, unknown>>, colour: boolean): string {
  if (!rows.length) return '';
  const cols = columns(rows);
  const width = Math.max(40, (process.stdout.columns ?? 160) - 2);
  const cells = rows.map((r) => cols.map((c) => cell(r[c])));
  const widths = cols.map((c, i) => Math.min(40, Math.max(c.length, ...cells.map((r) => r[i]!.length))));
  const line = (values: string[]) =>
    values.map((v, i) => (v.length > widths[i]! ? `${v.slice(0, widths[i]! - 1)}…` : v.padEnd(widths[i]!))).join('  ').trimEnd().slice(0, width);
  return [paint(1, line(cols.map((c) => c.toUpperCase())), colour), ...cells.map(line)].join('\n');
}

function details(value: Record<string, unknown>, colour: boolean): string {
  const keys = Object.keys(value);
  const pad = Math.max(...keys.map((k) => k.length));
  return keys.map((k) => `${paint(2, k.padEnd(pad), colour)}  ${typeof value[k] === 'object' && value[k] !== null ? JSON.stringify(value[k]) : cell(value[k])}`).join('\n');
}

function print(body: unknown, json: boolean): void {
  const data = body && typeof body === 'object' && 'data' in body ? (body as { data: unknown }).data : body;
  if (json) {
    process.stdout.write(`${JSON.stringify(data ?? null, null, 2)}\n`);
    return;
  }
  const colour = useColour();
  if (Array.isArray(data)) {
    const out = table(data as Array<Record<string, unknown>>, colour);
    if (out) process.stdout.write(`${out}\n`);
    else process.stderr.write('nothing to list\n');
    const meta = (body as { meta?: { next_cursor?: string | null; current_page?: number | null; last_page?: number } }).meta;
    if (meta?.next_cursor) process.stderr.write(`more: --cursor ${meta.next_cursor}\n`);
    else if (meta?.current_page && meta.last_page && meta.current_page < meta.last_page) process.stderr.write(`page ${meta.current_page} of ${meta.last_page}: --page ${meta.current_page + 1}\n`);
  } else if (data && typeof data === 'object') process.stdout.write(`${details(data as Record<string, unknown>, colour)}\n`);
  else process.stdout.write(`${JSON.stringify(data)}\n`);
  // A secret or token shown once: say so.
  for (const key of ['secret', 'token'] as const) {
    const once = (body as Record<string, unknown> | null)?.[key];
    if (typeof once === 'string') process.stdout.write(`${paint(33, `${key} (shown once):`, colour)} ${once}\n`);
  }
}

/** A spinner on stderr while `work` runs (TTY only). */
async function spinning<T>(label: string, work: Promise<T>): Promise<T> {
  if (!process.stderr.isTTY) return work;
  const frames = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';
  let i = 0;
  const timer = setInterval(() => process.stderr.write(`\r${frames[i++ % frames.length]} ${label}`), 100);
  try {
    return await work;
  } finally {
    clearInterval(timer);
    process.stderr.write('\r\u001b[2K');
  }
}

const units = (n: number) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KB` : `${n} B`);

/** Streams an export to a file or stdout; on a TTY, a progress line (rows, bytes, rate) on stderr. */
async function saveExport(stream: ReadableStream<Uint8Array>, out: string | undefined): Promise<void> {
  const started = Date.now();
  let bytes = 0;
  let rows = 0;
  const tty = Boolean(process.stderr.isTTY) && Boolean(out);
  let last = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      bytes += chunk.byteLength;
      for (const b of chunk) if (b === 10) rows += 1;
      const now = Date.now();
      if (tty && now - last > 100) {
        last = now;
        const rate = bytes / Math.max(0.001, (now - started) / 1000);
        process.stderr.write(`\r${rows.toLocaleString('en-US')} rows  ${units(bytes)}  ${units(rate)}/s`);
      }
      controller.enqueue(chunk);
    },
  });
  const source = Readable.fromWeb(stream.pipeThrough(counter) as never);
  await pipeline(source, out ? fs.createWriteStream(out) : process.stdout);
  if (tty) process.stderr.write(`\r\u001b[2K${rows.toLocaleString('en-US')} rows, ${units(bytes)} written to ${out}\n`);
}

// --- commands ----------------------------------------------------------------------------------------------

type Parts = { params: Record<string, string>; query: Record<string, unknown>; body: Record<string, unknown> | undefined };

function build(route: AppRoute, positional: string[], opts: Record<string, unknown>): Parts {
  const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const params = Object.fromEntries(names.map((n, i) => [n, positional[i]!]));
  const pick = (schema: unknown) => {
    const out: Record<string, unknown> = {};
    for (const [key, s] of Object.entries(objectShape(schema))) {
      const raw = opts[camel(key)];
      if (raw === undefined) continue;
      out[key] = kindOf(s) === 'boolean' ? raw : parseValue(kindOf(s), String(raw), key);
    }
    return out;
  };
  const hasBody = 'body' in route && route.body && typeof (route.body as z.ZodTypeAny).safeParse === 'function';
  return { params, query: pick(route.query), body: hasBody ? pick(route.body) : undefined };
}

type Global = { json?: boolean; profile?: string };

async function run(routeKey: string, route: AppRoute, positional: string[], opts: Record<string, unknown>, global: Global): Promise<void> {
  const { url, token } = connection(global.profile);
  const client = createClient({ baseUrl: url, token });
  const parts = build(route, positional, opts);
  const ok = client.ok as unknown as Record<string, (args: unknown) => Promise<unknown>>;

  if (routeKey === 'exportSubmissions') {
    const stream = await client.exportSubmissions({ params: { form: parts.params.form! }, query: parts.query as never });
    return saveExport(stream, opts.output as string | undefined);
  }
  if (routeKey === 'downloadSubmissionFile') {
    // The API redirects to a signed storage URL; fetch follows it.
    const res = await fetch(new URL(route.path.replace(/:(\w+)/g, (_, n: string) => encodeURIComponent(parts.params[n]!)), url.replace(/\/v1\/?$/, '')), {
      headers: { authorization: `Bearer ${token}` },
    });
    if (!res.ok || !res.body) {
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON
      }
      throw new IntakeError({ status: res.status, body, headers: res.headers });
    }
    return saveExport(res.body as ReadableStream<Uint8Array>, opts.output as string | undefined);
  }
  const body = await ok[routeKey]!({ params: parts.params, query: parts.query, ...(parts.body !== undefined ? { body: parts.body } : {}) });
  if (opts.wait && routeKey === 'replayWebhook') {
    const { job_id } = body as { job_id: string };
    const job = await spinning(`replaying (job ${job_id})`, client.waitForJob(job_id, { intervalMs: 500 }));
    return print({ data: job }, Boolean(global.json));
  }
  if (opts.wait && routeKey === 'regenerateAiInsights') {
    const queuedAt = Date.parse((body as { queued_at: string }).queued_at);
    const done = (async () => {
      for (;;) {
        const { data } = await (client.ok.getAiInsights({ query: {} }) as Promise<{ data: { generated_at: string } | null }>);
        if (data && Date.parse(data.generated_at) >= queuedAt) return { data };
        await new Promise((r) => setTimeout(r, 1000));
      }
    })();
    return print(await spinning('generating insights', done), Boolean(global.json));
  }
  print(body, Boolean(global.json));
}

export function fail(err: unknown): never {
  if (err instanceof IntakeError) {
    const hint = HINTS[err.code];
    process.stderr.write(`intake: ${err.message}${err.status ? ` (${err.status} ${err.code})` : ''}\n`);
    const extra = err.body as { details?: Array<{ path: string; message: string }>; retry_after?: number };
    for (const d of extra.details ?? []) process.stderr.write(`  ${d.path}: ${d.message}\n`);
    if (extra.retry_after !== undefined) process.stderr.write(`  retry after ${extra.retry_after} s\n`);
    if (hint) process.stderr.write(`hint: ${hint}\n`);
    process.exit(exitFor(err));
  }
  if (err instanceof UsageError) {
    process.stderr.write(`intake: ${err.message}\n`);
    process.exit(EXIT.usage);
  }
  process.stderr.write(`intake: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(EXIT.server);
}

function addRoute(parent: Command, routeKey: string, route: AppRoute, verb: string): void {
  const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const cmd = verb ? parent.command(verb) : parent;
  cmd.description(`${route.summary ?? routeKey}  [${route.method} ${route.path}]`);
  for (const n of names) cmd.argument(`<${n.replace(/_/g, '-')}>`);
  const seen = new Set<string>();
  const add = (schema: unknown, required: boolean) => {
    for (const [key, s] of Object.entries(objectShape(schema))) {
      if (seen.has(key)) continue;
      seen.add(key);
      const kind = kindOf(s);
      const desc = [s.description ?? unwrapSchema(s).description ?? '', kind === 'list' ? '(comma-separated)' : kind === 'json' ? '(JSON)' : ''].filter(Boolean).join(' ');
      const inner = unwrapSchema(s);
      const option = kind === 'boolean' ? new Option(`--${flag(key)}`, desc) : new Option(`--${flag(key)} <${kind === 'number' ? 'n' : 'value'}>`, desc);
      if (inner instanceof z.ZodEnum) option.choices(inner.options as string[]);
      if (required && !s.isOptional()) option.makeOptionMandatory();
      cmd.addOption(option);
      if (kind === 'boolean') cmd.addOption(new Option(`--no-${flag(key)}`).hideHelp());
    }
  };
  add(route.query, false);
  if ('body' in route) add(route.body, true);
  if (routeKey === 'exportSubmissions' || routeKey === 'downloadSubmissionFile') cmd.option('-o, --output <file>', 'write to this file (default: standard output)');
  if (routeKey === 'replayWebhook' || routeKey === 'regenerateAiInsights') cmd.option('--wait', 'wait until it has finished (a spinner on a terminal)');
  withConnectionOptions(cmd).option('--json', 'print exactly the API data as JSON');
  cmd.action(async (...args: unknown[]) => {
    const command = args.at(-1) as Command;
    try {
      await run(routeKey, route, args.slice(0, names.length) as string[], command.opts(), command.opts());
    } catch (err) {
      fail(err);
    }
  });
}

/** `--profile`: which saved login (`intake login`) a command uses; INTAKE_URL + INTAKE_TOKEN otherwise. */
export function withConnectionOptions(cmd: Command): Command {
  return cmd.option('--profile <name>', 'use this saved login instead of INTAKE_URL/INTAKE_TOKEN (default: the last one logged in)');
}

export function registerApi(program: Command): void {
  const groups = new Map<string, Command>();
  for (const [routeKey, route] of Object.entries(contract as Record<string, unknown>)) {
    if (!isAppRoute(route as AppRoute)) continue;
    const [resource, verb] = COMMANDS[routeKey] ?? [];
    if (!resource) throw new Error(`no CLI command for route ${routeKey}: add it to cli/api.ts COMMANDS`);
    if (routeKey === 'streamSubmissions') continue; // an open stream, not one answer: `intake listen` (cli/listen.ts)
    let group = groups.get(resource);
    if (!group) {
      const [description, examples] = RESOURCES[resource] ?? [resource, []];
      group = verb ? program.command(resource).description(description) : program.command(resource);
      if (examples.length) group.addHelpText('after', `\nExamples:\n${examples.map((e) => `  ${e}`).join('\n')}\n`);
      groups.set(resource, group);
    }
    addRoute(group, routeKey, route as AppRoute, verb);
  }
  // A convenience verb: a new secret for a webhook (updateWebhook with rotate_secret).
  withConnectionOptions(groups.get('webhooks')!.command('rotate-secret'))
    .option('--json', 'print exactly the API data as JSON')
    .description('Give a webhook a new signing secret (the old one keeps signing for 24 hours)')
    .argument('<form>')
    .argument('<webhook>')
    .action(async (form: string, webhook: string, o: Global) => {
      try {
        await run('updateWebhook', contract.updateWebhook, [form, webhook], { rotateSecret: true }, o);
      } catch (err) {
        fail(err);
      }
    });

  withConnectionOptions(program.command('login'))
    .description('Save the URL and token the API commands use (~/.config/intake/config.json, mode 0600)')
    .requiredOption('--url <url>', 'the Intake server, e.g. https://forms.example.com')
    .requiredOption('--token <token>', 'an API token (intk_…)')
    .action(async (o: { url: string; token: string; profile?: string }) => {
      const profile = o.profile ?? 'default';
      try {
        const me = await createClient({ baseUrl: o.url, token: o.token }).ok.getMe();
        const saved = readProfiles();
        writeProfiles({ ...saved, profiles: { ...saved.profiles, [profile]: { url: o.url, token: o.token } }, current: profile });
        process.stdout.write(`logged in to ${o.url} as ${me.data.user.email} (team ${me.data.team.name}); profile "${profile}"\n`);
      } catch (err) {
        fail(err);
      }
    });
  withConnectionOptions(program.command('logout'))
    .description('Forget a saved login (the current profile, or --profile)')
    .action((o: Global) => {
      const saved = readProfiles();
      const name = o.profile ?? saved.current ?? 'default';
      const { [name]: _gone, ...rest } = saved.profiles;
      writeProfiles({ profiles: rest, ...(saved.current && saved.current !== name ? { current: saved.current } : {}) });
      process.stdout.write(`logged out of profile "${name}"\n`);
    });
  program
    .command('completion')
    .description('Print a shell completion script: eval "$(intake completion bash)", or add it to ~/.zshrc')
    .argument('<shell>', 'bash or zsh')
    .action((shell: string) => {
      if (shell !== 'bash' && shell !== 'zsh') fail(new UsageError('completion: bash or zsh'));
      process.stdout.write(completionScript(program, shell as 'bash' | 'zsh'));
    });
}

/** Completion of commands, subcommands and options, from the command tree itself. */
export function completionScript(program: Command, shell: 'bash' | 'zsh'): string {
  const lines: string[] = [];
  const walk = (cmd: Command, prefix: string) => {
    const words = [...cmd.commands.map((c) => c.name()), ...cmd.options.map((o) => o.long!).filter(Boolean)];
    lines.push(`    "${prefix}") words="${words.join(' ')}" ;;`);
    for (const sub of cmd.commands) walk(sub, prefix ? `${prefix} ${sub.name()}` : sub.name());
  };
  walk(program, '');
  const body = `_intake() {
  local cur path words i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  path=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -*) ;; *) path="\${path:+$path }\${COMP_WORDS[i]}" ;; esac
  done
  case "$path" in
${lines.join('\n')}
    *) words="" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
`;
  return shell === 'bash' ? `${body}complete -F _intake intake\n` : `autoload -U +X bashcompinit && bashcompinit\n${body}complete -F _intake intake\n`;
}
