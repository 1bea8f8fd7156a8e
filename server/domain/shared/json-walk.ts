/**
 * Walks over parsed JSON without recursion: a deeply nested value must be refused, not overflow the stack.
 * Callers check the shape first (`jsonShape`) and walk only what passed.
 */

export type JsonShape = { depth: number; nodes: number; longestString: number };

/** Depth (a scalar is 0), node count and longest string or key of a value; stops early once past a limit. */
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

/** Whether JSON text nests deeper than `maxDepth`, read in one pass before JSON.parse would spend time on it. */
export function jsonTextTooDeep(text: string, maxDepth: number): boolean {
  return jsonTextExcess(text, { maxDepth, maxNodes: Infinity }) === 'depth';
}

/**
 * Which limit JSON text breaks (depth, or values as `jsonShape` counts them), read in one pass that stops at
 * the first excess, so an oversized body never becomes a tree. Malformed text is left for the parser.
 */
export function jsonTextExcess(text: string, limits: { maxDepth: number; maxNodes: number }): 'depth' | 'nodes' | null {
  let depth = 0;
  let nodes = 0;
  let inString = false;
  // Whether each open container is an array (bounded by maxDepth), and whether the next non-blank
  // character is the first element of an array just opened.
  const arrays: boolean[] = [];
  let arrayJustOpened = false;
  let sawValue = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
      continue;
    }
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (!sawValue) {
      sawValue = true;
      nodes = 1;
    }
    if (arrayJustOpened) {
      arrayJustOpened = false;
      if (c !== 0x5d /* ] */) nodes++;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limits.maxDepth) return 'depth';
      arrays.push(c === 0x5b);
      arrayJustOpened = c === 0x5b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
      arrays.pop();
    } else if (c === 0x3a /* : */ || (c === 0x2c /* , */ && arrays[arrays.length - 1])) nodes++;
    else continue;
    if (nodes > limits.maxNodes) return 'nodes';
  }
  // The last value may be a scalar after which nothing structural came.
  return nodes > limits.maxNodes ? 'nodes' : null;
}
