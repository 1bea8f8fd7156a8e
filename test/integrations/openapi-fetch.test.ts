import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, makeTeam } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';
import { recipe } from '../support/recipes.ts';

/**
 * The openapi-fetch recipe of docs/integrations.md, as an integrator runs it: types generated from the
 * committed openapi.json by openapi-typescript at its defaults, the recipe compiled strict, then run by
 * Node against a live server.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const t = await startLiveTestApp();

// In the repo (scratch/ is git-ignored), so the recipe's `openapi-fetch` resolves from node_modules.
mkdirSync(path.join(ROOT, 'scratch'), { recursive: true });
const dir = mkdtempSync(path.join(ROOT, 'scratch', 'openapi-fetch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TSC_STRICT = [
  '--noEmit',
  '--strict',
  '--exactOptionalPropertyTypes',
  '--module',
  'NodeNext',
  '--moduleResolution',
  'NodeNext',
  '--target',
  'ES2023',
  '--lib',
  'ES2023',
  '--types',
  'node',
  '--skipLibCheck',
];

describe('openapi-typescript + openapi-fetch (docs/integrations.md)', () => {
  beforeAll(async () => {
    await run(
      process.execPath,
      [
        path.join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'),
        path.join(ROOT, 'openapi.json'),
        '-o',
        'intake.d.ts',
      ],
      { cwd: dir },
    );
    writeFileSync(path.join(dir, 'recipe.ts'), recipe('openapi-fetch'));
  }, 60_000);

  it(
    'compiles strict (exactOptionalPropertyTypes) against the types generated at their defaults',
    { timeout: 120_000 },
    async () => {
      const tsc = await run(
        process.execPath,
        [path.join(ROOT, 'node_modules/typescript/bin/tsc'), ...TSC_STRICT, 'recipe.ts'],
        {
          cwd: dir,
        },
      ).catch((failed: { stdout: string; stderr: string }) => failed);
      expect(tsc.stdout + tsc.stderr).toBe('');
    },
  );

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
