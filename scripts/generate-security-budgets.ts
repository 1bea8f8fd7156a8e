import { readFileSync, writeFileSync } from 'node:fs';
import { operationBudgets, withBudgets } from './operation-budgets.ts';

// Writes SECURITY.md's "Operation budgets" from the contract's declared costs; `-- --check` only reports drift (exit 1).
const target = new URL('../SECURITY.md', import.meta.url);
const current = readFileSync(target, 'utf8');
const text = withBudgets(current, operationBudgets());

if (process.argv.includes('--check')) {
  if (current !== text) {
    console.error('SECURITY.md differs from the declared operation costs: run `npm run openapi` and commit it.');
    process.exit(1);
  }
  console.log('SECURITY.md operation budgets are up to date');
} else {
  writeFileSync(target, text);
  console.log('wrote SECURITY.md operation budgets');
}
