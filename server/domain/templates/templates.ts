import { Context, Liquid, Output, TagToken, toValueSync, TypeGuards, type Template } from 'liquidjs';

/**
 * Logic-less, sandboxed templates on Liquid (liquidjs): only `{{ … }}` placeholders with a few filters. No tag
 * (`{% … %}`) parses, so there is no loop, no assignment, no include and no file access; a placeholder reads
 * only the context's own properties (never a prototype's: `{{ constructor }}` is empty), and its filters are
 * `default`, `lower`, `upper`, `truncate`, `json` and `join`, any other name refused when the template is parsed.
 * A render is bounded in time, in memory and in output (OUTPUT_MAX_BYTES).
 */

/** A template holds at most this many characters. */
export const TEMPLATE_MAX_CHARS = 10_000;
/** A render writes at most this many bytes (UTF-8); more fails the render. */
export const OUTPUT_MAX_BYTES = 1024 * 1024;
/** The filters a placeholder may use. */
export const TEMPLATE_FILTERS = ['default', 'lower', 'upper', 'truncate', 'json', 'join'] as const;

/** A render takes at most this many milliseconds, and liquidjs's own count of what it builds stays under this. */
const RENDER_LIMIT_MS = 250;
const MEMORY_LIMIT = 16 * 1024 * 1024;

/** A template that does not parse; `line` and `column` (1-based) where liquidjs tells them. */
export class TemplateError extends Error {
  readonly reason: string;
  readonly line: number | undefined;
  readonly column: number | undefined;
  constructor(reason: string, at?: { line: number; column: number }) {
    super(at ? `${reason} (line ${at.line}, column ${at.column})` : reason);
    this.name = 'TemplateError';
    this.reason = reason;
    this.line = at?.line;
    this.column = at?.column;
  }

  /** The same error, said of a part of a larger template (`At customer.name: …`). */
  within(where: string): TemplateError {
    const at = this.line !== undefined ? { line: this.line, column: this.column! } : undefined;
    return new TemplateError(`At ${where}: ${this.reason}`, at);
  }
}

/** A render that failed: its output is too large, it took too long or built too much. */
export class TemplateRenderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateRenderError';
  }
}

const engine = new Liquid({
  strictFilters: true,
  strictVariables: false,
  ownPropertyOnly: true,
  // Lookups (includes, layouts) would go to this empty map, never the file system; no tag asks for one anyway.
  templates: {},
  relativeReference: false,
  parseLimit: TEMPLATE_MAX_CHARS,
  renderLimit: RENDER_LIMIT_MS,
  memoryLimit: MEMORY_LIMIT,
});
for (const name of Object.keys(engine.tags)) delete (engine.tags as Record<string, unknown>)[name];
for (const name of Object.keys(engine.filters))
  if (!(TEMPLATE_FILTERS as readonly string[]).includes(name)) engine.unregisterFilter(name);
engine.registerFilter('lower', (v: unknown) => show(v).toLowerCase());
engine.registerFilter('upper', (v: unknown) => show(v).toUpperCase());

/**
 * A value as text: nothing for null and a missing value, a list's items separated by ", ", an object as JSON,
 * anything else as JavaScript writes it.
 */
export function show(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(show).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

// --- Context ------------------------------------------------------------------------------------------------

/** What a template reads: built by `templateContext`. */
export type TemplateContext = { readonly scope: Record<string, unknown> };

export type ContextInput = {
  payload: Record<string, unknown>;
  form: { id: string; name: string };
  submission: {
    id: string;
    received_at: string;
    category: string | null;
    source: string;
  } & Record<string, unknown>;
};

/** A copy without a prototype, its own keys only. */
function bare(value: Record<string, unknown>): Record<string, unknown> {
  return Object.assign(Object.create(null) as Record<string, unknown>, value);
}

/**
 * Each payload field at the top level (`{{ email }}`, `{{ ["first name"] }}`) and under `fields`; `form` and
 * `submission` hold the form's and the submission's own values. `fields`, `form` and `submission` win over
 * payload fields of those names, which stay readable as `fields.form` and so on.
 */
export function templateContext(input: ContextInput): TemplateContext {
  const scope = bare(input.payload);
  scope.fields = bare(input.payload);
  scope.form = bare(input.form);
  scope.submission = bare(input.submission);
  return { scope };
}

// --- Parsing ------------------------------------------------------------------------------------------------

/** A parsed text template. */
export type CompiledText = { readonly kind: 'text'; readonly templates: Template[] };

const FILTER_LIST = TEMPLATE_FILTERS.join(', ');

function positionOf(err: unknown): { line: number; column: number } | undefined {
  const token = (err as { token?: { getPosition?: () => [number, number] } }).token;
  const at = token?.getPosition?.();
  return at ? { line: at[0], column: at[1] } : undefined;
}

/** liquidjs's message without the position it appends (TemplateError states it its own way). */
function bareMessage(err: unknown): string {
  return String((err as Error).message ?? err).replace(/, line:\d+, col:\d+$/, '');
}

function parseTemplates(text: string): Template[] {
  if (text.length > TEMPLATE_MAX_CHARS)
    throw new TemplateError(`A template holds at most ${TEMPLATE_MAX_CHARS.toLocaleString('en')} characters.`);
  let templates: Template[];
  try {
    templates = engine.parse(text);
  } catch (err) {
    const at = positionOf(err);
    const token = (err as { token?: unknown }).token;
    if (token instanceof TagToken)
      throw new TemplateError(`Tags such as {% ${token.name} %} are not allowed: only {{ … }} placeholders.`, at);
    const filter = /^undefined filter: (.+)$/.exec(bareMessage(err));
    if (filter) throw new TemplateError(`Unknown filter "${filter[1]}": the filters are ${FILTER_LIST}.`, at);
    throw new TemplateError(`The template does not parse: ${bareMessage(err)}.`, at);
  }
  // No tag is registered, so none parses; this walk keeps it so whatever liquidjs adds later.
  for (const t of templates) {
    const token = (t as unknown as { token?: unknown }).token;
    if (!(t instanceof Output) && !TypeGuards.isHTMLToken(token))
      throw new TemplateError('Only {{ … }} placeholders and text are allowed.', positionOf({ token }));
  }
  return templates;
}

/** Parses a text template; throws TemplateError saying what is wrong and where. */
export function parseTemplate(text: string): CompiledText {
  return { kind: 'text', templates: parseTemplates(text) };
}

// --- Rendering ----------------------------------------------------------------------------------------------

const tooLarge = () =>
  new TemplateRenderError(
    `The rendered output is larger than ${OUTPUT_MAX_BYTES / 1024 / 1024} MiB (${OUTPUT_MAX_BYTES.toLocaleString('en')} bytes).`,
  );

/** The whole output, checked against OUTPUT_MAX_BYTES. */
function capped(text: string): string {
  if (Buffer.byteLength(text) > OUTPUT_MAX_BYTES) throw tooLarge();
  return text;
}

/** The bytes one render may still write, so an output too large fails while it is written, not after. */
class Budget {
  private left = OUTPUT_MAX_BYTES;
  spend(text: string): void {
    this.left -= Buffer.byteLength(text);
    if (this.left < 0) throw tooLarge();
  }
}

/** Collects text as `show` writes each value, within the budget. */
class TextEmitter {
  buffer = '';
  private readonly budget: Budget;
  constructor(budget: Budget) {
    this.budget = budget;
  }
  write(value: unknown): void {
    const text = show(value);
    this.budget.spend(text);
    this.buffer += text;
  }
}

/** Keeps the one value a lone placeholder writes. */
class ValueEmitter {
  buffer = '';
  value: unknown = undefined;
  write(value: unknown): void {
    this.value = value;
  }
}

function newContext(ctx: TemplateContext): Context {
  return new Context(ctx.scope, engine.options, { sync: true }, { liquid: engine });
}

/** Runs templates, turning liquidjs's failures (and the budget's) into a TemplateRenderError. */
function run(templates: Template[], context: Context, emitter: TextEmitter | ValueEmitter): void {
  try {
    toValueSync(engine.renderer.renderTemplates(templates, context, emitter));
  } catch (err) {
    const cause = (err as { originalError?: unknown }).originalError ?? err;
    if (cause instanceof TemplateRenderError) throw cause;
    const message = bareMessage(cause);
    if (/memory alloc limit exceeded/.test(message))
      throw new TemplateRenderError('The template builds too much while rendering.');
    if (/template render limit exceeded/.test(message))
      throw new TemplateRenderError(`The template took longer than ${RENDER_LIMIT_MS} ms to render.`);
    throw new TemplateRenderError(`The template could not be rendered: ${message}.`);
  }
}

function renderWith(compiled: CompiledText, context: Context, budget: Budget): string {
  const emitter = new TextEmitter(budget);
  run(compiled.templates, context, emitter);
  return emitter.buffer;
}

/** Renders a text template; throws TemplateRenderError when it cannot. */
export function renderText(compiled: CompiledText, ctx: TemplateContext): string {
  return renderWith(compiled, newContext(ctx), new Budget());
}

// --- JSON templates -----------------------------------------------------------------------------------------

type JsonNode =
  | { t: 'literal'; value: unknown }
  | { t: 'text'; compiled: CompiledText }
  /** A string that is exactly one placeholder: its value keeps its JSON type. */
  | { t: 'value'; output: Template }
  | { t: 'array'; items: JsonNode[] }
  | { t: 'object'; entries: Array<[string, JsonNode]> };

/** A parsed JSON template: a JSON object whose string values are templates (its keys are literal). */
export type CompiledJson = { readonly kind: 'json'; readonly root: JsonNode };

/** Where a value sits in the JSON, for messages: `customer.name`, `tags[0]`. */
const pathOf = (path: Array<string | number>) =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('') || '(top level)';

function compileNode(value: unknown, path: Array<string | number>): JsonNode {
  if (typeof value === 'string') {
    let templates: Template[];
    try {
      templates = parseTemplates(value);
    } catch (err) {
      throw err instanceof TemplateError ? err.within(pathOf(path)) : err;
    }
    if (templates.length === 1 && templates[0] instanceof Output) return { t: 'value', output: templates[0] };
    return { t: 'text', compiled: { kind: 'text', templates } };
  }
  if (Array.isArray(value)) return { t: 'array', items: value.map((v, i) => compileNode(v, [...path, i])) };
  if (value !== null && typeof value === 'object')
    return { t: 'object', entries: Object.entries(value).map(([k, v]) => [k, compileNode(v, [...path, k])]) };
  return { t: 'literal', value };
}

function parseJsonObject(text: string): Record<string, unknown> {
  if (text.length > TEMPLATE_MAX_CHARS)
    throw new TemplateError(`A template holds at most ${TEMPLATE_MAX_CHARS.toLocaleString('en')} characters.`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new TemplateError(`The template is not valid JSON: ${(err as Error).message}.`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new TemplateError('The template must be a JSON object.');
  return value as Record<string, unknown>;
}

/**
 * Parses a JSON template: valid JSON, an object, whose every string value is a template. A string that is
 * exactly one placeholder (`"{{ tags }}"`, `"{{ count | default: 0 }}"`) renders as the value's JSON (a
 * number, list, object or null); any other string renders as text.
 */
export function parseJsonTemplate(text: string): CompiledJson {
  return { kind: 'json', root: compileNode(parseJsonObject(text), []) };
}

/** A placeholder's value as JSON can carry it (undefined and what JSON lacks become null). */
function jsonValue(value: unknown): unknown {
  if (value === undefined || (typeof value === 'number' && !Number.isFinite(value))) return null;
  return value;
}

function renderNode(node: JsonNode, context: Context, budget: Budget): unknown {
  switch (node.t) {
    case 'literal':
      return node.value;
    case 'text':
      return renderWith(node.compiled, context, budget);
    case 'value': {
      const emitter = new ValueEmitter();
      run([node.output], context, emitter);
      const value = jsonValue(emitter.value);
      budget.spend(JSON.stringify(value) ?? 'null');
      return value;
    }
    case 'array':
      return node.items.map((n) => renderNode(n, context, budget));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, n] of node.entries)
        Object.defineProperty(out, k, { value: renderNode(n, context, budget), enumerable: true, writable: true });
      return out;
    }
  }
}

/** Renders a JSON template to the JSON text sent; throws TemplateRenderError when it cannot. */
export function renderJson(compiled: CompiledJson, ctx: TemplateContext): string {
  return capped(JSON.stringify(renderNode(compiled.root, newContext(ctx), new Budget())));
}

// --- Form templates -----------------------------------------------------------------------------------------

/** A parsed form template: field name → text template, sent as application/x-www-form-urlencoded. */
export type CompiledForm = { readonly kind: 'form'; readonly fields: Array<[string, CompiledText]> };

/** Parses a form template: a JSON object whose values are each a text template (names are literal). */
export function parseFormTemplate(text: string): CompiledForm {
  const fields = Object.entries(parseJsonObject(text)).map(([name, value]): [string, CompiledText] => {
    if (typeof value !== 'string')
      throw new TemplateError(`At ${name}: each value of a form template is a string (a template).`);
    try {
      return [name, parseTemplate(value)];
    } catch (err) {
      throw err instanceof TemplateError ? err.within(name) : err;
    }
  });
  return { kind: 'form', fields };
}

/** Renders a form template to the urlencoded body sent; throws TemplateRenderError when it cannot. */
export function renderForm(compiled: CompiledForm, ctx: TemplateContext): string {
  const context = newContext(ctx);
  const budget = new Budget();
  const params = new URLSearchParams();
  for (const [name, template] of compiled.fields) params.append(name, renderWith(template, context, budget));
  return capped(params.toString());
}
