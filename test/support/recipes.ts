import { readFileSync } from 'node:fs';
import path from 'node:path';

const DOC = path.resolve(import.meta.dirname, '../../docs/integrations.md');

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
