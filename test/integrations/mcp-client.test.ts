import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolSpecs } from '../../server/transports/mcp/tools.ts';
import { bearer, makeTeam } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';
import { runProcess } from '../support/processes.ts';
import { recipe, recipeFolder, typecheck } from '../support/recipes.ts';

/** docs/integrations.md "An MCP client with the official SDK", compiled and run as a reader would. */

const dir = recipeFolder('mcp-client');
const file = path.join(dir, 'recipe.ts');
writeFileSync(file, `${recipe('mcp-client')}\n`);

const t = await startLiveTestApp();

describe('recipe: an MCP client with the official SDK', () => {
  it(
    'type-checks under strict, exactOptionalPropertyTypes and noUncheckedIndexedAccess',
    { timeout: 180_000 },
    async () => {
      const flags = ['--exactOptionalPropertyTypes', '--noUncheckedIndexedAccess', '--lib', 'ES2024'];
      expect(await typecheck(dir, [file], flags)).toBe('');
    },
  );

  it('connects with a bearer token, lists the tools, creates a form, submits to it and lists it', async () => {
    const owner = await makeTeam(t, { plan: 'team' });
    const env = { ...process.env, INTAKE_URL: t.baseUrl, INTAKE_TOKEN: owner.token };
    const run = await runProcess(process.execPath, [file], env, dir);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as { tools: number; form: string; emails: string[]; missing: string };
    expect(out.tools).toBe(toolSpecs.length);
    expect(out.emails).toEqual(['ada@example.com']);
    expect(out.missing).toMatch(/^get_form: not_found: /);

    // What the program did is there for REST: a published form of the token's team, with the submission.
    const form = await t.http.get(`/v1/forms/${out.form}`).set(bearer(owner.token));
    expect(form.body.data).toMatchObject({ id: out.form, name: 'Contact', status: 'published' });
    const submissions = await t.http.get(`/v1/forms/${out.form}/submissions`).set(bearer(owner.token));
    expect(submissions.body.data.map((s: { payload: { message: string } }) => s.payload.message)).toEqual(['Hello!']);
  });

  it('fails without a valid token, as a client is told', async () => {
    const env = { ...process.env, INTAKE_URL: t.baseUrl, INTAKE_TOKEN: 'intk_not_a_token' };
    const run = await runProcess(process.execPath, [file], env, dir);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/401|invalid_token|Unauthorized/i);
  });
});
