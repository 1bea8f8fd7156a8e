import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeTeam } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';
import {
  expectFormFlow,
  generateOpenApiTypes,
  recipe,
  recipeFolder,
  runRecipe,
  typecheck,
  type FormFlow,
} from '../support/recipes.ts';

/**
 * The openapi-fetch recipe of docs/integrations.md, as an integrator runs it: types generated from the
 * committed openapi.json by openapi-typescript at its defaults, the recipe compiled strict, then run by
 * Node against a live server.
 */
const t = await startLiveTestApp();
const dir = recipeFolder('openapi-fetch');

describe('openapi-typescript + openapi-fetch (docs/integrations.md)', () => {
  beforeAll(async () => {
    await generateOpenApiTypes(dir);
    writeFileSync(path.join(dir, 'recipe.ts'), recipe('openapi-fetch'));
  }, 60_000);

  it(
    'compiles strict (exactOptionalPropertyTypes) against the types generated at their defaults',
    { timeout: 120_000 },
    async () => {
      expect(await typecheck(dir, ['recipe.ts'], ['--exactOptionalPropertyTypes'])).toBe('');
    },
  );

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
