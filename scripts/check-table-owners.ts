/**
 * The table-ownership check, run by `npm run check` (`make check`) and test/platform/layering.test.ts: `node
 * scripts/check-table-owners.ts [root]`. Every table has one owner module under server/infra/db/queries/
 * (OWNERS, the list docs/architecture.md shows): only it writes the table, so whoever reads a module
 * knows every way its rows change. Any module may read any table.
 *
 * A write is a statement in a string or template literal of a query module — `insert into t`,
 * `update t [alias] set`, `delete from t`, `truncate t` — or an import of a MikroORM entity (its unit of
 * work can write whatever it loads). A table name the module builds at run time (`${table}`) counts as a
 * write to a table the check cannot name. A statement whose text an owner exports and another module
 * embeds (rate-windows.ts's `windowHit`) is counted where its text is: in the owner.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const QUERIES = 'server/infra/db/queries/';

/** Table → the query module (under server/infra/db/queries/) that owns it. Every table the migrations create is here. */
export const OWNERS: Record<string, string> = {
  teams: 'accounts.ts',
  users: 'accounts.ts',
  memberships: 'accounts.ts',
  api_tokens: 'tokens.ts',
  api_token_teams: 'tokens.ts',
  plans: 'billing.ts',
  subscriptions: 'billing.ts',
  invoices: 'billing.ts',
  forms: 'forms.ts',
  form_teams: 'forms.ts',
  form_fields: 'forms.ts',
  form_folder_counts: 'forms.ts',
  notification_digests: 'notifications.ts',
  notification_addresses: 'notification-addresses.ts',
  autoresponse_sends: 'autoresponses.ts',
  submissions: 'submissions.ts',
  submission_files: 'submissions.ts',
  submission_events: 'submissions.ts',
  submission_notes: 'submission-notes.ts',
  form_rules: 'rules.ts',
  idempotency_keys: 'submission-inserts.ts',
  submission_unique_keys: 'submission-inserts.ts',
  usage_counters: 'submission-inserts.ts',
  webhooks: 'webhooks.ts',
  deliveries: 'deliveries.ts',
  jobs: 'jobs.ts',
  erasure_requests: 'erasure.ts',
  insights: 'insights.ts',
  insight_locks: 'insights.ts',
  export_leases: 'leases.ts',
  submission_streams: 'leases.ts',
  rate_limit_windows: 'rate-windows.ts',
  stream_heads: 'stream-heads.ts',
  stream_numbers: 'stream-heads.ts',
};

/**
 * A write outside the owner, allowed: one statement doing two tables' work, where splitting it would add a
 * round trip on a hot path. `fn` is the function (or const) whose text holds the statement; table `?` is a
 * name built at run time. Each entry is also listed in docs/architecture.md.
 */
export type SharedWrite = { module: string; fn: string; table: string; why: string };

const INGEST =
  "the ingest path: one statement stores a post with its files, usage count, idempotency key and job (and learns field names through forms.ts's learningNames)";
export const SHARED_WRITES: SharedWrite[] = [
  { module: 'submission-inserts.ts', fn: 'insertSubmission', table: 'submissions', why: INGEST },
  { module: 'submission-inserts.ts', fn: 'insertSubmission', table: 'submission_files', why: INGEST },
  {
    module: 'submission-inserts.ts',
    fn: 'insertSubmissions',
    table: 'submissions',
    why: `${INGEST} (a group commit's batch)`,
  },
  {
    module: 'submission-inserts.ts',
    fn: 'insertSubmissions',
    table: 'submission_files',
    why: `${INGEST} (a group commit's batch)`,
  },
  {
    module: 'deliveries.ts',
    fn: 'recordAttempts',
    table: 'webhooks',
    why: "the delivery runner's batch of attempts clears its webhooks' failure clock in the same statement",
  },
  ...['form_folder_counts', 'submission_unique_keys'].map((table) => ({
    module: 'submissions.ts',
    fn: 'countingChanges',
    table,
    why: 'a statement inserting, moving or deleting submissions counts their folders and releases their keys (no row triggers on Citus shards)',
  })),
  {
    module: 'submissions.ts',
    fn: 'runCounting',
    table: 'form_folder_counts',
    why: 'on Citus, the folder counts a countingChanges statement answered, inserted as VALUES right after it',
  },
  ...[
    ['insertSubmission', 'form_folder_counts'],
    ['insertSubmissions', 'form_folder_counts'],
    ['insertSubmissions', 'stream_heads'],
    ['insertSubmissions', 'stream_numbers'],
  ].map(([fn, table]) => ({
    module: 'submission-inserts.ts',
    fn: fn!,
    table: table!,
    why: `${INGEST}, its folder count and, for spam, its stream number`,
  })),
  ...['takeLease', 'renewLease', 'dropLease'].map((fn) => ({
    module: 'leases.ts',
    fn,
    table: '?',
    why: 'the lease table is one of KINDS (export_leases, submission_streams), both owned here',
  })),
];

export type OwnerReport = {
  modules: number;
  writes: number;
  /** Writes of a table by a module that does not own it, not in SHARED_WRITES. */
  foreign: Array<{ module: string; fn: string; table: string; statement: string }>;
  /** Tables the migrations create that OWNERS leaves out, and owners that name no query module. */
  unowned: string[];
  missingModules: string[];
  /** SHARED_WRITES entries that no longer match a write. */
  stale: string[];
};

const WRITE = [
  /\binsert\s+into\s+(\$\{\}|"?[a-z_][\w.]*"?)/g,
  /\bupdate\s+(?:only\s+)?(\$\{\}|"?[a-z_][\w.]*"?)(?:\s+(?:as\s+)?[a-z_]\w*)?\s+set\b/g,
  /\bdelete\s+from\s+(?:only\s+)?(\$\{\}|"?[a-z_][\w.]*"?)/g,
  /\btruncate\s+(?:table\s+)?(?:only\s+)?(\$\{\}|"?[a-z_][\w.]*"?)/g,
];

/** The outermost named function or const holding a node ('' at the top level). */
function holder(node: ts.Node): string {
  let name = '';
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if ((ts.isFunctionDeclaration(n) || ts.isVariableDeclaration(n)) && n.name && ts.isIdentifier(n.name))
      name = n.name.text;
  }
  return name;
}

/** The text of every string and template literal in a module, a substitution shown as `${}`, with its holder. */
function literals(source: ts.SourceFile): Array<{ text: string; fn: string }> {
  const out: Array<{ text: string; fn: string }> = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
      out.push({ text: node.text, fn: holder(node) });
    else if (ts.isTemplateExpression(node))
      out.push({
        text: node.head.text + node.templateSpans.map((s) => '${}' + s.literal.text).join(''),
        fn: holder(node),
      });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

export type Write = { fn: string; table: string; statement: string };

/** The tables a module writes, each with where and the statement's first words. */
export function writesOf(file: string, text: string, entityTables: Map<string, string>): Write[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const writes: Write[] = [];
  for (const literal of literals(source)) {
    const sqlText = literal.text.toLowerCase().replace(/\s+/g, ' ');
    for (const pattern of WRITE) {
      for (const m of sqlText.matchAll(pattern)) {
        const name = m[1]!.replace(/"/g, '');
        writes.push({ fn: literal.fn, table: name === '${}' ? '?' : name, statement: m[0] });
      }
    }
  }
  for (const statement of source.statements) {
    if (
      !ts.isImportDeclaration(statement) ||
      !ts.isStringLiteral(statement.moduleSpecifier) ||
      !statement.moduleSpecifier.text.endsWith('/entities.ts')
    )
      continue;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const spec of bindings.elements) {
      const table = entityTables.get((spec.propertyName ?? spec.name).text);
      if (table && !spec.isTypeOnly && !statement.importClause!.isTypeOnly)
        writes.push({ fn: '', table, statement: `MikroORM entity ${spec.name.text}` });
    }
  }
  return writes;
}

/** Entity name → table, from server/infra/db/entities.ts's `defineEntity({ name, tableName })`. */
function entityTables(root: string): Map<string, string> {
  const file = path.join(root, 'server/infra/db/entities.ts');
  const tables = new Map<string, string>();
  if (!fs.existsSync(file)) return tables;
  for (const m of fs.readFileSync(file, 'utf8').matchAll(/defineEntity\(\{\s*name:\s*'(\w+)',\s*tableName:\s*'(\w+)'/g))
    tables.set(m[1]!, m[2]!);
  return tables;
}

/** Tables the migrations create (schema-qualified ones, pg-boss's, are not the project's). */
function createdTables(root: string): Set<string> {
  const dir = path.join(root, 'server/infra/db/migrations');
  const tables = new Set<string>();
  if (!fs.existsSync(dir)) return tables;
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    for (const m of fs
      .readFileSync(path.join(dir, f), 'utf8')
      .matchAll(/create\s+(?:unlogged\s+)?table\s+(?:if\s+not\s+exists\s+)?([a-z_]\w*)\b(?!\.)/gi))
      tables.add(m[1]!.toLowerCase());
  }
  return tables;
}

export function checkTableOwners(root = ROOT, known = { owners: OWNERS, shared: SHARED_WRITES }): OwnerReport {
  const dir = path.join(root, QUERIES);
  const modules = fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.ts'))
        .sort()
    : [];
  const entities = entityTables(root);
  const report: OwnerReport = {
    modules: modules.length,
    writes: 0,
    foreign: [],
    unowned: [],
    missingModules: [],
    stale: [],
  };
  const used = new Set<number>();
  for (const module of modules) {
    for (const w of writesOf(module, fs.readFileSync(path.join(dir, module), 'utf8'), entities)) {
      report.writes++;
      if (known.owners[w.table] === module) continue;
      const allowed = known.shared.findIndex((s) => s.module === module && s.fn === w.fn && s.table === w.table);
      if (allowed >= 0) used.add(allowed);
      else report.foreign.push({ module: QUERIES + module, ...w });
    }
  }
  for (const table of [...createdTables(root)].sort()) if (!known.owners[table]) report.unowned.push(table);
  for (const [table, module] of Object.entries(known.owners))
    if (!modules.includes(module)) report.missingModules.push(`${table} → ${QUERIES}${module}`);
  known.shared.forEach((s, i) => used.has(i) || report.stale.push(`${s.module} ${s.fn} writes ${s.table}`));
  return report;
}

function main(): number {
  const report = checkTableOwners(path.resolve(process.argv[2] ?? ROOT));
  for (const f of report.foreign) {
    const owner = OWNERS[f.table];
    const whose =
      f.table === '?'
        ? 'a table named at run time'
        : owner
          ? `owned by ${QUERIES}${owner}`
          : 'a table with no owner in OWNERS';
    console.error(
      `table owners: ${f.module}${f.fn ? ` (${f.fn})` : ''} writes ${f.table} (${f.statement}), ${whose}: move the write to the owner, or list it in SHARED_WRITES and docs/architecture.md`,
    );
  }
  for (const t of report.unowned)
    console.error(
      `table owners: the migrations create ${t}, which has no owner module: add it to OWNERS in scripts/check-table-owners.ts and docs/architecture.md`,
    );
  for (const m of report.missingModules) console.error(`table owners: the owner module does not exist: ${m}`);
  for (const s of report.stale) console.error(`table owners: SHARED_WRITES entry no longer needed, remove it: ${s}`);
  const failures = report.foreign.length + report.unowned.length + report.missingModules.length + report.stale.length;
  console.log(
    `table owners: ${report.modules} query modules, ${report.writes} writes: ${failures ? `${failures} problem(s)` : 'each table written by its owner only'}`,
  );
  return failures ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main();
