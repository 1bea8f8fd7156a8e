import { readFileSync, writeFileSync } from 'node:fs';
import { openApiText } from './openapi/document.ts';

// `npm run openapi` writes openapi.json from the contract; `-- --check` only reports drift (exit 1).
const target = new URL('../openapi.json', import.meta.url);
const text = openApiText();

if (process.argv.includes('--check')) {
  const current = readFileSync(target, 'utf8');
  if (current !== text) {
    console.error('openapi.json differs from the contract: run `npm run openapi` and commit it.');
    process.exit(1);
  }
  console.log('openapi.json is up to date');
} else {
  writeFileSync(target, text);
  console.log('wrote openapi.json');
}
