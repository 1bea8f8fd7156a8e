import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../cli/program.ts';
import { cliReference } from '../../cli/reference-docs.ts';

/** docs/cli.md is generated from the command tree and checked like openapi.json (issue 27). */
const committed = fs.existsSync(new URL('../../docs/cli.md', import.meta.url))
  ? fs.readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8')
  : null;

describe('docs/cli.md', () => {
  it('is exactly what the command tree generates (run `npm run cli-docs`, or `npm run openapi`, after changing a command)', async () => {
    const generated = cliReference(await buildProgram());
    expect(committed, 'docs/cli.md is missing: run `npm run cli-docs` and commit it').not.toBeNull();
    expect(committed, 'docs/cli.md is stale: run `npm run cli-docs` and commit it').toBe(generated);
    expect(cliReference(await buildProgram()), 'the generator must be deterministic').toBe(generated);
  });

  it('documents every command with its usage, and the --form convention', async () => {
    const program = await buildProgram();
    const names = (cmd: typeof program, prefix: string): string[] =>
      cmd.commands.flatMap((c) => [`${prefix} ${c.name()}`, ...names(c, `${prefix} ${c.name()}`)]);
    for (const name of names(program, 'intake')) expect(committed).toContain(`\n## ${name}\n`);
    expect(committed).toContain('Usage: intake submissions get --form <id> [options] <submission>');
    expect(committed).toContain('Usage: intake deliveries list --form <id> --webhook <id> [options]');
  });

  it('is the reference the CLI and the README point to', () => {
    expect(fs.readFileSync(new URL('../../cli/api.ts', import.meta.url), 'utf8')).toContain('docs/cli.md');
    expect(fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8')).toContain('docs/cli.md');
  });
});

describe('counts in the README and docs', () => {
  it('states no hand-written count of tools, operations or commands (it drifts: the README said 39 MCP tools when the contract yielded 42)', () => {
    const files = [
      'README.md',
      ...fs
        .readdirSync(new URL('../../docs', import.meta.url))
        .filter((f) => f.endsWith('.md') && f !== 'cli.md')
        .map((f) => `docs/${f}`),
    ];
    const counts = files.flatMap((file) => {
      const text = fs.readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8').replace(/\s+/g, ' ');
      const found = [
        ...text.matchAll(/\b\d{2,3} (?:MCP |API |CLI )?(?:tools|operations|routes|commands)\b/gi),
        ...text.matchAll(/\b(?:tools?|operations|commands) for every [^.]{0,20}? — \d{2,3}\b/gi),
      ];
      return found.map((m) => `${file}: ${m[0]}`);
    });
    expect(counts).toEqual([]);
  });
});
