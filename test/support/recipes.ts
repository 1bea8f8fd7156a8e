import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect } from 'vitest';
import { bearer, type TestApp, type TestMember } from './harness.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOC = path.join(ROOT, 'docs/integrations.md');
const run = promisify(execFile);

/**
 * The code of a recipe in docs/integrations.md: the first fenced block after its `<!-- recipe: name -->`
 * marker, as the reader copies it. Tests write it to a file, compile it and run it.
 */
export function recipe(name: string): string {
  const text = readFileSync(DOC, 'utf8');
  const marker = `<!-- recipe: ${name} -->`;
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`docs/integrations.md has no recipe ${name}`);
  const block = /```[a-z]*\n([\s\S]*?)\n```/.exec(text.slice(at + marker.length));
  if (!block) throw new Error(`recipe ${name} has no code block`);
  return block[1]!;
}

/**
 * A folder for a recipe's project, removed after the file's tests: in the repo (scratch/ is git-ignored), so
 * what the recipe imports resolves from node_modules as in an integrator's project.
 */
export function recipeFolder(name: string): string {
  mkdirSync(path.join(ROOT, 'scratch'), { recursive: true });
  const dir = mkdtempSync(path.join(ROOT, 'scratch', `${name}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** What every recipe is compiled with: strict, Node's module resolution, the Node types. */
const STRICT = [
  '--noEmit',
  '--strict',
  '--module',
  'NodeNext',
  '--moduleResolution',
  'NodeNext',
  '--target',
  'ES2023',
  '--types',
  'node',
  '--skipLibCheck',
];

/** tsc's report on `files` in `dir`, strict plus `flags` (`--lib` defaults to ES2023): empty when they compile. */
export async function typecheck(dir: string, files: string[], flags: string[] = []): Promise<string> {
  const lib = flags.includes('--lib') ? [] : ['--lib', 'ES2023'];
  const tsc = await run(
    process.execPath,
    [path.join(ROOT, 'node_modules/typescript/bin/tsc'), ...STRICT, ...lib, ...flags, ...files],
    { cwd: dir },
  ).catch((failed: { stdout: string; stderr: string }) => failed);
  return tsc.stdout + tsc.stderr;
}

/** openapi-typescript at its defaults, on the committed openapi.json, into `dir/intake.d.ts`. */
export async function generateOpenApiTypes(dir: string): Promise<void> {
  const cli = path.join(ROOT, 'node_modules/openapi-typescript/bin/cli.js');
  await run(process.execPath, [cli, path.join(ROOT, 'openapi.json'), '-o', 'intake.d.ts'], { cwd: dir });
}

/** Runs a recipe's file with Node against a server (INTAKE_URL, INTAKE_TOKEN); its last line of output, as JSON. */
export async function runRecipe<T>(dir: string, file: string, env: Record<string, string>): Promise<T> {
  const { stdout } = await run(process.execPath, [file], { cwd: dir, env: { ...process.env, ...env } });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as T;
}

/** What the openapi-fetch and hey-api recipes print: the same flow through two generated clients. */
export type FormFlow = {
  form: string;
  status: string;
  pages: number;
  received: string[];
  notFound: { status: number; error: string; message: string };
};

/** The flow's output, and the form it left as the API reads it: published, with five submissions. */
export async function expectFormFlow(t: TestApp, owner: TestMember, out: FormFlow): Promise<void> {
  expect(out.status).toBe('published');
  expect([...out.received].sort()).toEqual(['Ada', 'Alan', 'Barbara', 'Edsger', 'Grace']);
  expect(out.pages).toBe(3); // five submissions, two a page
  expect(out.notFound).toMatchObject({ status: 404, error: 'not_found' });
  const form = await t.http.get(`/v1/forms/${out.form}`).set(bearer(owner.token));
  expect(form.body.data).toMatchObject({ status: 'published', submissions_count: 5 });
}
