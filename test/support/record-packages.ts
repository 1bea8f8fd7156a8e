import fs from 'node:fs';
import { registerHooks } from 'node:module';

/**
 * Preloaded into a child process (`node --import`): appends to the file RECORD_PACKAGES names each package
 * the process loads, once, as it loads it — by ESM import (static or dynamic) or CommonJS require alike,
 * which module.registerHooks both sees, in the process's own thread.
 */
const file = process.env.RECORD_PACKAGES;
if (!file) throw new Error('RECORD_PACKAGES names no file');
const seen = new Set<string>();

registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    const tail = resolved.url.split('/node_modules/').slice(1).at(-1);
    if (tail) {
      const parts = tail.split('/');
      const name = parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
      if (!seen.has(name)) {
        seen.add(name);
        fs.appendFileSync(file, `${name}\n`);
      }
    }
    return resolved;
  },
});
