import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeTeam } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';
import { expectFormFlow, recipe, recipeFolder, runRecipe, typecheck, type FormFlow } from '../support/recipes.ts';

/**
 * The @hey-api/openapi-ts recipe of docs/integrations.md, as an integrator runs it: a fetch client generated
 * from the committed openapi.json by the documented config, the recipe compiled strict, then run by Node
 * against a live server.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const t = await startLiveTestApp();
const dir = recipeFolder('hey-api');

/** What the doc asks of tsconfig, and what Node's type stripping needs (erasable syntax, type-only imports). */
const FLAGS = ['--allowImportingTsExtensions', '--verbatimModuleSyntax', '--erasableSyntaxOnly', '--lib', 'ES2023,DOM'];

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
    expect(await typecheck(dir, ['recipe.ts'], FLAGS)).toBe('');
  });

  it(
    'creates and publishes a form, lists its submissions by cursor and reads a typed 404',
    { timeout: 60_000 },
    async () => {
      const owner = await makeTeam(t);
      const out = await runRecipe<FormFlow>(dir, 'recipe.ts', { INTAKE_URL: t.baseUrl, INTAKE_TOKEN: owner.token });
      await expectFormFlow(t, owner, out);
    },
  );
});
