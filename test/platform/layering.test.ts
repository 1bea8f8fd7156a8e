import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkLayers } from '../../scripts/check-layers.ts';
import { checkTableOwners, OWNERS, SHARED_WRITES } from '../../scripts/check-table-owners.ts';

/** The layering (DESIGN.md "Layout", docs/decisions.md "One data path"), checked on the source itself. */
const root = path.resolve(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return fs
    .readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f));
}

const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

/** A throwaway tree of modules, each given as its imports, for the check to read. */
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'intake-layers-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
function tree(name: string, modules: Record<string, string>): string {
  const dir = path.join(scratch, name);
  for (const [file, source] of Object.entries(modules)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), source);
  }
  return dir;
}

describe('layering', () => {
  it('the source has no import cycle and no upward import (scripts/check-layers.ts, also run by make check)', () => {
    const report = checkLayers(root);
    expect(report.files).toBeGreaterThan(150);
    expect(report.cycles).toEqual([]);
    expect(report.upward).toEqual([]);
  });

  it('server/domain is grouped by resource and test/ mirrors it: no rule module or test file lies loose at the top', () => {
    const loose = (dir: string, keep: (f: string) => boolean) =>
      fs
        .readdirSync(path.join(root, dir), { withFileTypes: true })
        .filter((e) => e.isFile() && keep(e.name))
        .map((e) => `${dir}/${e.name}`);
    expect(loose('server/domain', (f) => f.endsWith('.ts'))).toEqual([]);
    expect(loose('test', (f) => f.endsWith('.test.ts'))).toEqual([]);
    const groups = fs.readdirSync(path.join(root, 'server/domain'));
    for (const resource of ['accounts', 'forms', 'submissions', 'webhooks', 'spam', 'insights', 'lifecycle'])
      expect(groups).toContain(resource);
  });

  it('refuses each kind of upward import, whatever the import form', () => {
    const dir = tree('upward', {
      'contract/forms.ts': "import type { Db } from '../server/infra/db/database.ts';",
      'server/infra/db/database.ts': '',
      'server/infra/db/migrations/0005-rules.ts': "import { regexProblem } from '../../../domain/custom-regex.ts';",
      'server/domain/custom-regex.ts': '',
      'server/domain/outages.ts': "import { isUnreachable } from '../infra/unreachable-errors.ts';",
      'server/infra/unreachable-errors.ts': '',
      'server/infra/storage/object-storage.ts': "export { isOutage } from '../../domain/outages.ts';",
      'server/infra/ai/provider.ts': "import { CATEGORIES } from '../../../contract/submissions.ts';",
      'server/infra/ai/local-provider.ts': "import type { AiProvider } from './provider.ts';",
      'contract/submissions.ts': '',
      'server/infra/queue/definitions.ts': '',
      'server/workers/handlers.ts': '',
      'server/domain/processing.ts': [
        "import type { AiProvider } from '../infra/ai/provider.ts';",
        "import { notificationEmail } from '../infra/queue/definitions.ts';",
        "const { LocalProvider } = await import('../infra/ai/local-provider.ts');",
        "import '../workers/handlers.ts';",
      ].join('\n'),
      'server/transports/http/routers/forms.ts': "import { listForms } from '../../../infra/db/queries/forms.ts';",
      'server/infra/db/queries/forms.ts': '',
      'sdk/index.ts': "import { contract } from '../contract/forms.ts';\nimport { boot } from '../server/main.ts';",
      'server/main.ts': '',
    });
    const report = checkLayers(dir, { cycles: [], upward: [] });
    expect(report.cycles).toEqual([]);
    expect(report.upward.map((u) => `${u.from} → ${u.to}`).sort()).toEqual([
      'contract/forms.ts → server/infra/db/database.ts',
      'sdk/index.ts → server/main.ts',
      'server/domain/processing.ts → server/infra/ai/local-provider.ts',
      'server/domain/processing.ts → server/workers/handlers.ts',
      'server/infra/db/migrations/0005-rules.ts → server/domain/custom-regex.ts',
      'server/infra/storage/object-storage.ts → server/domain/outages.ts',
      'server/transports/http/routers/forms.ts → server/infra/db/queries/forms.ts',
    ]);
  });

  it('refuses an import cycle, a type-only or dynamic import closing it too', () => {
    const dir = tree('cycles', {
      'bench/run.ts': "const m = await import('./ingest.ts');",
      'bench/ingest.ts': "import type { BenchOptions } from './run.ts';",
      'server/domain/forms.ts': "import { sweep } from './retention.ts';",
      'server/domain/retention.ts': "import { erase } from './submissions.ts';",
      'server/domain/submissions.ts': "import { getForm } from './forms.ts';\nimport { iso } from './timestamps.ts';",
      'server/domain/timestamps.ts': '',
    });
    const report = checkLayers(dir, { cycles: [], upward: [] });
    expect(report.cycles).toEqual([
      { files: ['bench/ingest.ts', 'bench/run.ts'], example: ['bench/ingest.ts', 'bench/run.ts', 'bench/ingest.ts'] },
      {
        files: ['server/domain/forms.ts', 'server/domain/retention.ts', 'server/domain/submissions.ts'],
        example: [
          'server/domain/forms.ts',
          'server/domain/retention.ts',
          'server/domain/submissions.ts',
          'server/domain/forms.ts',
        ],
      },
    ]);

    // An allowance covers its cycle only: a file joining the cycle fails the check again.
    const known = { cycles: [{ files: ['bench/ingest.ts', 'bench/run.ts'], why: 'test' }], upward: [] };
    expect(checkLayers(dir, known).cycles.map((c) => c.files[0])).toEqual(['server/domain/forms.ts']);
    fs.writeFileSync(
      path.join(dir, 'bench/ingest.ts'),
      "import type { BenchOptions } from './run.ts';\nimport './lib.ts';",
    );
    fs.writeFileSync(path.join(dir, 'bench/lib.ts'), "import './run.ts';");
    expect(checkLayers(dir, known).cycles.map((c) => c.files)).toContainEqual([
      'bench/ingest.ts',
      'bench/lib.ts',
      'bench/run.ts',
    ]);
  });

  it('server/domain mentions no EntityManager, em., LockMode, MikroORM or db/entities: it calls functions of server/db', () => {
    const domain = sources('server/domain');
    expect(domain.length).toBeGreaterThan(20);
    const orm = /\bEntityManager\b|\bem\.|\.em\(\)|\bLockMode\b|@mikro-orm\/|db\/entities/;
    expect(domain.filter((f) => orm.test(read(f)))).toEqual([]);
  });

  it('SQL lives only in server/infra/db (query modules, migrations, the handle)', () => {
    const outside = sources('server').filter((f) => !f.startsWith(path.join('server', 'infra', 'db') + path.sep));
    const sql = /\b(select\s+[\w*(]|insert\s+into\s|delete\s+from\s|update\s+\w+\s+set\s)/i;
    // infra/queue/queue.ts hands pg-boss's own statements to the handle (its db adapter), and writes none itself.
    const queue = path.join('server', 'infra', 'queue', 'queue.ts');
    const offending = outside.filter((f) => sql.test(read(f)) || (f !== queue && /\.query(<[^>]*>)?\(/.test(read(f))));
    expect(offending).toEqual([]);
  });

  it('each table is written by its owner query module only (scripts/check-table-owners.ts, also run by make check)', () => {
    const report = checkTableOwners(root);
    expect(report.modules).toBeGreaterThan(20);
    expect(report.writes).toBeGreaterThan(70);
    expect(report.foreign).toEqual([]);
    expect(report.unowned).toEqual([]);
    expect(report.missingModules).toEqual([]);
    expect(report.stale).toEqual([]);
  });

  it('refuses each form of write to a table another module owns, and reads, comments and allowed statements pass', () => {
    const dir = tree('owners', {
      'server/infra/db/migrations/0001-init.ts':
        "this.addSql('create table forms (id text); create unlogged table hits (k text); create table orphans (id text); create table pgboss.job (id text);');",
      'server/infra/db/entities.ts':
        "export const Form = defineEntity({\n  name: 'Form',\n  tableName: 'forms',\n  properties: {},\n});",
      'server/infra/db/queries/forms.ts': [
        "import { Form } from '../entities.ts';",
        "export const f = (sql) => sql.query('update forms set name = $2 where id = $1');",
        // A read of another's table, a comment naming a write and an upsert's `do update set` are no writes.
        '// update hits set k = 1; delete from hits',
        'export const g = (sql) => sql.query(`select * from hits h join forms f on true for update of h`);',
      ].join('\n'),
      'server/infra/db/queries/hits.ts': [
        'export const HIT = `insert into hits as w (k) values ($1) on conflict (k) do update set k = excluded.k`;',
        "export function shared(sql) { return sql.query(`with a as (update hits set k = 'x' returning 1) update forms f set name = 'y'`); }",
        'export function bad(sql, t) { return sql.query(`delete from forms where id = $1`); }',
        'export function dynamic(sql, t) { return sql.query(`truncate ${t}`); }',
      ].join('\n'),
      'server/infra/db/queries/orm.ts':
        "import { Form } from '../entities.ts';\nimport type { Form as F } from '../entities.ts';",
    });
    const owners = { forms: 'forms.ts', hits: 'hits.ts', gone: 'gone.ts' };
    const shared = [
      { module: 'hits.ts', fn: 'shared', table: 'forms', why: 'test' },
      { module: 'hits.ts', fn: 'elsewhere', table: 'forms', why: 'test' },
    ];
    const report = checkTableOwners(dir, { owners, shared });
    expect(report.foreign.map((f) => `${f.module} ${f.fn} ${f.table} (${f.statement})`)).toEqual([
      'server/infra/db/queries/hits.ts bad forms (delete from forms)',
      'server/infra/db/queries/hits.ts dynamic ? (truncate ${})',
      'server/infra/db/queries/orm.ts  forms (MikroORM entity Form)',
    ]);
    expect(report.writes).toBe(8);
    expect(report.unowned).toEqual(['orphans']);
    expect(report.missingModules).toEqual(['gone → server/infra/db/queries/gone.ts']);
    expect(report.stale).toEqual(['hits.ts elsewhere writes forms']);
  });

  it('docs/architecture.md lists the owner of every table and every exception, as the check does', () => {
    const doc = read('docs/architecture.md');
    const rows = [...doc.matchAll(/^\| `(\w+)` \| `([\w-]+\.ts)` \|$/gm)].map((m) => [m[1], m[2]]);
    expect(Object.fromEntries(rows)).toEqual(OWNERS);
    expect(rows).toHaveLength(Object.keys(OWNERS).length);
    for (const s of SHARED_WRITES) {
      const line = doc.split('\n').find((l) => l.startsWith(`| \`${s.module}\`, `) && l.includes(`\`${s.fn}\``));
      expect(line, `${s.module} ${s.fn}`).toBeDefined();
      expect(line).toContain(s.table === '?' ? 'a table named at run time' : `\`${s.table}\``);
    }
  });
});
