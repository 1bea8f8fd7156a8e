import { isStorableText, TEXT_MESSAGE } from '../../../contract/common.ts';
import { AppError, validationFailed, type ErrorDetail } from './errors.ts';
import { printable } from './field-types.ts';
import { jsonTextExcess } from './json-walk.ts';

/**
 * The one guard on input, whatever transport carried it (a REST body, MCP tool arguments, `/mcp` framing).
 * Every check runs before anything else walks or stores the value, without recursion, and answers 400
 * `validation_failed` naming the field (or 413, or `invalid_json`).
 */

export type InputLimits = { maxBytes: number; maxDepth: number; maxNodes: number };

/** Every API request body and every set of MCP tool arguments: 1 MiB, 32 levels, 20,000 values. */
export const API_INPUT_LIMITS: InputLimits = { maxBytes: 1024 * 1024, maxDepth: 32, maxNodes: 20_000 };

type Where = ErrorDetail['in'];
export type GuardOptions = {
  limits?: InputLimits;
  /** Where the value came from, or, for a flat set of arguments (MCP), where each top-level key belongs. */
  in?: Where | ((topLevelKey: string) => Where);
};

/** Paths go into error bodies: a key may be long and may hold the very characters being refused. */
const MAX_PATH_CHARS = 200;
function shownPath(path: string): string {
  const p = printable(path || '(root)');
  return p.length > MAX_PATH_CHARS ? `${p.slice(0, MAX_PATH_CHARS)}…` : p;
}

/** 400 `validation_failed` whose message says which fields are wrong (agents read only the message). */
export function invalidInput(details: ErrorDetail[], summary?: string): AppError {
  const named = details.map((d) => `${d.path}: ${d.message}`).join('; ');
  const message = summary ?? (named.length > 500 ? `${named.slice(0, 500)}…` : named);
  return validationFailed(details, message || 'The request is invalid.');
}

function sizeMessage(limits: InputLimits): string {
  return `Input is limited to ${limits.maxDepth} levels of nesting and ${limits.maxNodes.toLocaleString('en-US')} values.`;
}

/**
 * Depth, value count, the bytes of strings and keys (413 past `maxBytes`, for transports that hand over a
 * value: MCP over stdio) and NUL or lone surrogates in any string or key, in one iterative walk. Null when it passes.
 */
export function inputProblem(value: unknown, opts: GuardOptions = {}): AppError | null {
  const limits = opts.limits ?? API_INPUT_LIMITS;
  const whereOf = (path: string[]): Where =>
    typeof opts.in === 'function' ? (path.length ? opts.in(path[0]!) : 'body') : (opts.in ?? 'body');
  const fail = (path: string[], message: string) =>
    invalidInput([{ in: whereOf(path), path: shownPath(path.join('.')), message }]);
  const stack: Array<[unknown, string[]]> = [[value, []]];
  let nodes = 0;
  // JSON text holds each string and key at least once, so their UTF-8 bytes never exceed the body's.
  let bytes = 0;
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (++nodes > limits.maxNodes) return fail([], sizeMessage(limits));
    if (typeof v === 'string') {
      if ((bytes += Buffer.byteLength(v)) > limits.maxBytes) return tooLargeInput(limits);
      if (!isStorableText(v)) return fail(path, TEXT_MESSAGE);
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    // `path` has one key per level below the root: this container sits at depth path.length + 1.
    if (path.length + 1 > limits.maxDepth) return fail(path, sizeMessage(limits));
    for (const [k, child] of Object.entries(v)) {
      const at = [...path, k];
      if ((bytes += Buffer.byteLength(k)) > limits.maxBytes) return tooLargeInput(limits);
      if (!isStorableText(k)) return fail(at, TEXT_MESSAGE);
      stack.push([child, at]);
    }
  }
  return null;
}

/** Throws what `inputProblem` finds. */
export function guardInput(value: unknown, opts: GuardOptions = {}): void {
  const problem = inputProblem(value, opts);
  if (problem) throw problem;
}

/** JSON text over the depth or value limit, found by a scan before JSON.parse builds it. Null when it may be parsed. */
export function jsonTextProblem(text: string, opts: GuardOptions = {}): AppError | null {
  const limits = opts.limits ?? API_INPUT_LIMITS;
  if (!jsonTextExcess(text, limits)) return null;
  return invalidInput(
    [{ in: typeof opts.in === 'string' ? opts.in : 'body', path: '(root)', message: sizeMessage(limits) }],
    'The JSON is nested too deeply or holds too many values.',
  );
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 bytes as text, or 400 `invalid_json` (RFC 8259 §8.1: JSON text is UTF-8; other bytes are malformed). */
export function decodeJsonText(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new AppError('invalid_json', 'The request body is not valid UTF-8.');
  }
}

export function tooLargeInput(limits: InputLimits = API_INPUT_LIMITS): AppError {
  return new AppError(
    'payload_too_large',
    `The request body is limited to ${limits.maxBytes.toLocaleString('en-US')} bytes.`,
    { limit_bytes: limits.maxBytes },
  );
}

/**
 * A JSON body from its bytes, through every check in order: size (413), strict UTF-8 and syntax (400
 * `invalid_json`), depth and count before parsing, then strings and keys. Callers tell them apart by `code`.
 */
export function parseJsonInput(bytes: Uint8Array, opts: GuardOptions = {}): unknown {
  const limits = opts.limits ?? API_INPUT_LIMITS;
  if (bytes.byteLength > limits.maxBytes) throw tooLargeInput(limits);
  const text = decodeJsonText(bytes);
  const excess = jsonTextProblem(text, opts);
  if (excess) throw excess;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('invalid_json', 'The request body is not valid JSON.');
  }
  guardInput(value, opts);
  return value;
}
