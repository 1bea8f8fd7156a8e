import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** The data path's layering (docs/decisions.md, "One data path"), checked on the source itself. */
const root = path.resolve(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return fs
    .readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f));
}

const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const imports = (file: string) => [...read(file).matchAll(/from '([^']+)'/g)].map((m) => m[1]!);

describe('layering', () => {
  it('HTTP routers, the ingest router, job handlers and CLI commands import nothing from server/db', () => {
    // jobs/queue.ts is the queue itself (pg-boss over the database handle), not a job handler.
    const callers = [...sources('server/http'), ...sources('server/ingest'), ...sources('server/jobs'), ...sources('cli')].filter(
      (f) => f !== path.join('server', 'jobs', 'queue.ts'),
    );
    expect(callers.length).toBeGreaterThan(10);
    const offending = callers.flatMap((f) => imports(f).filter((i) => /(^|\/)db\//.test(i)).map((i) => `${f} → ${i}`));
    expect(offending).toEqual([]);
  });

  it('SQL lives only in server/db (query modules, migrations, the handle)', () => {
    const outside = sources('server').filter((f) => !f.startsWith(path.join('server', 'db') + path.sep));
    const sql = /\b(select\s+[\w*(]|insert\s+into\s|delete\s+from\s|update\s+\w+\s+set\s)/i;
    // jobs/queue.ts hands pg-boss's own statements to the handle (its db adapter), and writes none itself.
    const queue = path.join('server', 'jobs', 'queue.ts');
    const offending = outside.filter((f) => sql.test(read(f)) || (f !== queue && /\.query(<[^>]*>)?\(/.test(read(f))));
    expect(offending).toEqual([]);
  });
});
