import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, makeTeam } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';
import { recipe } from '../support/recipes.ts';

/**
 * The @hey-api/openapi-ts recipe of docs/integrations.md, as an integrator runs it: a fetch client generated
 * from the committed openapi.json by the documented config, the recipe compiled strict, then run by Node
 * against a live server.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const t = await startLiveTestApp();

// In the repo (scratch/ is git-ignored), as a project of the integrator's would be.
mkdirSync(path.join(ROOT, 'scratch'), { recursive: true });
const dir = mkdtempSync(path.join(ROOT, 'scratch', 'hey-api-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the doc asks of tsconfig, and what Node's type stripping needs (erasable syntax, type-only imports). */
const TSC_STRICT = [
  '--noEmit',
  '--strict',
  '--allowImportingTsExtensions',
  '--verbatimModuleSyntax',
  '--erasableSyntaxOnly',
  '--module',
  'NodeNext',
  '--moduleResolution',
  'NodeNext',
  '--target',
  'ES2023',
  '--lib',
  'ES2023,DOM',
  '--types',
  'node',
  '--skipLibCheck',
];

const DOC_INPUT = "input: 'https://intake.example.com/v1/openapi.json'";

describe('@hey-api/openapi-ts (docs/integrations.md)', () => {
  beforeAll(async () => {
    const config = recipe('hey-api-config');
    expect(config).toContain(DOC_INPUT);
    writeFileSync(
      path.join(dir, 'openapi-ts.config.ts'),
      config.replace(DOC_INPUT, `input: ${JSON.stringify(path.join(ROOT, 'openapi.json'))}`),
    );
    await run(process.execPath, [path.join(ROOT, 'node_modules/@hey-api/openapi-ts/bin/run.js')], { cwd: dir });
    writeFileSync(path.join(dir, 'recipe.ts'), recipe('hey-api'));
  }, 60_000);

  it('compiles strict with the generated client', { timeout: 120_000 }, async () => {
    const tsc = await run(
      process.execPath,
      [path.join(ROOT, 'node_modules/typescript/bin/tsc'), ...TSC_STRICT, 'recipe.ts'],
      {
        cwd: dir,
      },
    ).catch((failed: { stdout: string; stderr: string }) => failed);
    expect(tsc.stdout + tsc.stderr).toBe('');
  });

  it(
    'creates and publishes a form, lists its submissions by cursor and reads a typed 404',
    { timeout: 60_000 },
    async () => {
      const owner = await makeTeam(t);
      const { stdout } = await run(process.execPath, ['recipe.ts'], {
        cwd: dir,
        env: { ...process.env, INTAKE_URL: t.baseUrl, INTAKE_TOKEN: owner.token },
      });
      const out = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
        form: string;
        status: string;
        pages: number;
        received: string[];
        notFound: { status: number; error: string; message: string };
      };
      expect(out.status).toBe('published');
      expect([...out.received].sort()).toEqual(['Ada', 'Alan', 'Barbara', 'Edsger', 'Grace']);
      expect(out.pages).toBe(3); // five submissions, two a page
      expect(out.notFound).toMatchObject({ status: 404, error: 'not_found' });

      const form = await t.http.get(`/v1/forms/${out.form}`).set(bearer(owner.token));
      expect(form.body.data).toMatchObject({ status: 'published', submissions_count: 5 });
    },
  );
});
