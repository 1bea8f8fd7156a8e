/**
 * Walks over parsed JSON without recursion: a value nested 300,000 deep must be refused, not overflow the
 * stack. Callers check the shape first (`jsonShape`, bounded by its limits) and walk only what passed.
 */

export type JsonShape = { depth: number; nodes: number; longestString: number };

/**
 * Depth (a scalar is 0, `{}` or `[]` is 1), node count and longest string (or key) of a value. Stops
 * early, returning what it saw so far (already over a limit), once the depth passes `maxDepth` or the
 * nodes pass `maxNodes`.
 */
export function jsonShape(value: unknown, limits: { maxDepth: number; maxNodes: number }): JsonShape {
  const shape: JsonShape = { depth: 0, nodes: 0, longestString: 0 };
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, level] = stack.pop()!;
    shape.nodes += 1;
    if (shape.nodes > limits.maxNodes) return shape;
    if (typeof v === 'string') {
      shape.longestString = Math.max(shape.longestString, v.length);
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    shape.depth = Math.max(shape.depth, level + 1);
    if (shape.depth > limits.maxDepth) return shape;
    for (const [k, child] of Object.entries(v)) {
      if (!Array.isArray(v)) shape.longestString = Math.max(shape.longestString, k.length);
      stack.push([child, level + 1]);
    }
  }
  return shape;
}

/** Every string in a value — object keys included when `keys` — in document order. */
export function* stringsIn(value: unknown, opts: { keys?: boolean } = {}): Generator<string> {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') yield v;
    else if (typeof v === 'number' || typeof v === 'boolean') yield String(v);
    else if (Array.isArray(v)) for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
    else if (v && typeof v === 'object') {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        stack.push(entries[i]![1]);
        if (opts.keys) stack.push(entries[i]![0]);
      }
    }
  }
}

/**
 * Whether JSON text nests deeper than `maxDepth`, read in one pass before it is parsed (JSON.parse of a
 * value 300,000 deep costs a quarter of a second of CPU; this stops at the first level too many).
 * Brackets inside strings do not count. Malformed text is left for the parser to refuse.
 */
export function jsonTextTooDeep(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}
