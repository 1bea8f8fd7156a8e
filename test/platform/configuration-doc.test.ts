import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** docs/configuration.md against the code that reads the environment, read as source text (no database). */
const CONFIG_SOURCE = 'server/config.ts';
const CLI_DIR = 'cli';
const DOC = 'docs/configuration.md';
/** The doc's section for the variables the CLI reads; every table above it is the server's. */
const CLI_SECTION = '\n## Variables of the CLI\n';

const root = path.resolve(import.meta.dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const NAME = '[A-Z][A-Z0-9_]*';

/** The env schema's keys (`  PORT: z…`) and any direct read (`env.X`, `process.env.X`, `read('X')`). */
function configVariables(source: string): Set<string> {
  return new Set([
    ...[...source.matchAll(new RegExp(`^\\s+(${NAME}):\\s`, 'gm'))].map((m) => m[1]!),
    ...[...source.matchAll(new RegExp(`\\b(?:process\\.)?env\\.(${NAME})\\b`, 'g'))].map((m) => m[1]!),
    ...[...source.matchAll(new RegExp(`\\bread\\(\\s*'(${NAME})'`, 'g'))].map((m) => m[1]!),
  ]);
}

/** `process.env.X` and `'X' in process.env` in every CLI module. */
function cliVariables(): Set<string> {
  const files = fs
    .readdirSync(path.join(root, CLI_DIR), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => read(path.join(CLI_DIR, f)));
  return new Set(
    files.flatMap((source) => [
      ...[...source.matchAll(new RegExp(`\\bprocess\\.env\\.(${NAME})\\b`, 'g'))].map((m) => m[1]!),
      ...[...source.matchAll(new RegExp(`'(${NAME})' in process\\.env\\b`, 'g'))].map((m) => m[1]!),
    ]),
  );
}

/** Table rows `| \`NAME\` | default | meaning |`, as name → default cell. */
function documented(markdown: string): Map<string, string> {
  return new Map(
    [...markdown.matchAll(new RegExp(`^\\| \`(${NAME})\` \\| ([^|]*) \\|`, 'gm'))].map((m) => [m[1]!, m[2]!]),
  );
}

/** Each schema key's literal default (`.default(30_000)`, `.default('intake')`); expressions are left out. */
function literalDefaults(source: string): Map<string, string> {
  const defaults = new Map<string, string>();
  const keys = [...source.matchAll(new RegExp(`^(\\s+)(${NAME}):\\s`, 'gm'))];
  keys.forEach((key, i) => {
    const definition = source.slice(key.index, keys[i + 1]?.index ?? source.indexOf('\n});', key.index));
    const literal = /\.default\(\s*([\d_.]+|'[^']+')\s*\)/.exec(definition)?.[1];
    if (literal) defaults.set(key[2]!, literal.startsWith("'") ? literal.slice(1, -1) : literal.replaceAll('_', ''));
  });
  return defaults;
}

const doc = read(DOC);
const cliAt = doc.indexOf(CLI_SECTION);
const serverDoc = documented(cliAt < 0 ? doc : doc.slice(0, cliAt));
const cliDoc = documented(cliAt < 0 ? '' : doc.slice(cliAt));
const source = read(CONFIG_SOURCE);

describe(`${DOC}`, () => {
  it(`documents every variable ${CONFIG_SOURCE} reads, and only those`, () => {
    const names = configVariables(source);
    expect(names.size, `no variables found in ${CONFIG_SOURCE}: has the way it reads them changed?`).toBeGreaterThan(
      40,
    );
    expect(
      [...names].filter((v) => !serverDoc.has(v)),
      `read by ${CONFIG_SOURCE} but missing from ${DOC}`,
    ).toEqual([]);
    expect(
      [...serverDoc.keys()].filter((v) => !names.has(v)),
      `in ${DOC} but not read by ${CONFIG_SOURCE}`,
    ).toEqual([]);
  });

  it(`gives each literal default of ${CONFIG_SOURCE}`, () => {
    const defaults = literalDefaults(source);
    expect(defaults.size).toBeGreaterThan(30);
    const wrong = [...defaults]
      .filter(([name, value]) => {
        const cell = serverDoc.get(name) ?? '';
        return !cell.includes(value) && !cell.replaceAll(',', '').includes(value);
      })
      .map(([name, value]) => `${name}: ${CONFIG_SOURCE} says ${value}, ${DOC} says ${serverDoc.get(name)}`);
    expect(wrong).toEqual([]);
  });

  it('documents every variable the CLI reads in its own section, and only those', () => {
    expect(cliAt, `${DOC} has no "${CLI_SECTION.trim()}" section`).toBeGreaterThan(0);
    const names = cliVariables();
    expect(names.size).toBeGreaterThan(0);
    expect(
      [...names].filter((v) => !cliDoc.has(v)),
      `read in ${CLI_DIR}/ but missing from ${DOC}`,
    ).toEqual([]);
    expect(
      [...cliDoc.keys()].filter((v) => !names.has(v)),
      `in ${DOC} but not read in ${CLI_DIR}/`,
    ).toEqual([]);
  });
});
