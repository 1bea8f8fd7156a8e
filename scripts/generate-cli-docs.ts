import { readFileSync, writeFileSync } from 'node:fs';
import { buildProgram } from '../cli/program.ts';
import { cliReference } from '../cli/reference-docs.ts';

// `npm run cli-docs` writes docs/cli.md from the CLI's command tree; `-- --check` only reports drift (exit 1).
const target = new URL('../docs/cli.md', import.meta.url);
const text = cliReference(await buildProgram());

if (process.argv.includes('--check')) {
  if (readFileSync(target, 'utf8') !== text) {
    console.error('docs/cli.md differs from the command tree: run `npm run cli-docs` and commit it.');
    process.exit(1);
  }
  console.log('docs/cli.md is up to date');
} else {
  writeFileSync(target, text);
  console.log('wrote docs/cli.md');
}
