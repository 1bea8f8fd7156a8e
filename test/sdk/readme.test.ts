import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

describe('the SDK package', () => {
  it('says in its README the Node version its engines field requires', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'sdk/package.json'), 'utf8')) as { engines: { node: string } };
    const readme = readFileSync(path.join(root, 'sdk/README.md'), 'utf8');
    const required = /^>=\s*([\d.]+)$/.exec(pkg.engines.node)?.[1];
    expect(required, `engines.node ${pkg.engines.node}`).toBeDefined();
    const stated = [...readme.matchAll(/Node ≥ ([\d.]+)/g)].map((m) => m[1]);
    expect(stated.length).toBeGreaterThan(0);
    for (const version of stated) expect(version).toBe(required);
  });
});
