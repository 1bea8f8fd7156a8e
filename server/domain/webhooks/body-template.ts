import {
  CONTENT_TYPES,
  EXTRA_HEADERS_MAX,
  HEADER_VALUE_MAX_CHARS,
  REFUSED_HEADER_PREFIXES,
  REFUSED_HEADERS,
} from '../../../contract/webhooks.ts';
import type { SubmissionEvent, WebhookEvent } from '../../infra/outbound/providers.ts';
import { validationFailed, type ErrorDetail } from '../shared/errors.ts';
import {
  TemplateError,
  TemplateRenderError,
  parseFormTemplate,
  parseJsonTemplate,
  parseTemplate,
  renderForm,
  renderJson,
  renderText,
  templateContext,
  type CompiledForm,
  type CompiledJson,
  type CompiledText,
  type TemplateContext,
} from '../templates/templates.ts';

/**
 * A webhook's templated body (provider `webhook`): how `body_template` is read for its `content_type`, what
 * a submission event renders to, and the extra headers a webhook may set. A templated body is rendered once,
 * when the delivery is made (domain/delivery/fan-out.ts), and stored with its media type: every attempt and
 * every replay sends those bytes, and the signature covers them.
 */

export type ContentType = (typeof CONTENT_TYPES)[number];

/** The media type each content type is sent as. */
export const MEDIA_TYPES: Record<ContentType, string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  text: 'text/plain; charset=utf-8',
};

export type CompiledBody = CompiledJson | CompiledForm | CompiledText;

/** Parses a body template as its content type reads it; throws TemplateError saying what is wrong and where. */
export function compileBody(contentType: ContentType, template: string): CompiledBody {
  if (contentType === 'json') return parseJsonTemplate(template);
  if (contentType === 'form') return parseFormTemplate(template);
  return parseTemplate(template);
}

/** Parsed templates by content type and text, so a busy form's deliveries parse theirs once per process. */
const compiled = new Map<string, CompiledBody>();
const COMPILED_CACHE = 200;

function cachedBody(contentType: ContentType, template: string): CompiledBody {
  const key = `${contentType}\u0000${template}`;
  let body = compiled.get(key);
  if (!body) {
    body = compileBody(contentType, template);
    if (compiled.size >= COMPILED_CACHE) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, body);
  }
  return body;
}

/** Renders a parsed body; throws TemplateRenderError when it cannot (an output too large, a render too long). */
export function renderBody(body: CompiledBody, ctx: TemplateContext): string {
  if (body.kind === 'json') return renderJson(body, ctx);
  if (body.kind === 'form') return renderForm(body, ctx);
  return renderText(body, ctx);
}

/** What a template reads of a submission event. */
export function eventContext(event: SubmissionEvent): TemplateContext {
  return templateContext({
    payload: event.payload,
    form: { id: event.form_id, name: event.form_name },
    submission: {
      id: event.submission_id,
      received_at: event.received_at,
      category: event.meta.category,
      source: event.meta.source,
      event: event.type,
      tags: event.tags,
      stage: event.stage,
      referrer: event.meta.referrer,
      spam_reason: event.spam_reason ?? null,
    },
  });
}

/** A webhook's settings that shape its requests. */
export type TemplateTarget = { provider: string; body_template?: string | null; content_type?: string | null };

const SUBMISSION_EVENTS = new Set<string>(['submission.created', 'submission.spam', 'submission.updated']);

/**
 * The templated body an event sends to a webhook, with its media type; null when the default body goes (no
 * template, another provider, an event that is no submission's, or a test call's). Throws TemplateRenderError
 * when the template cannot be rendered (or no longer parses).
 */
export function templatedBody(
  target: TemplateTarget,
  event: WebhookEvent,
): { body: string; contentType: string } | null {
  if (target.provider !== 'webhook' || !target.body_template || !SUBMISSION_EVENTS.has(event.type)) return null;
  const submission = event as SubmissionEvent;
  if (submission.test) return null;
  const contentType = (target.content_type ?? 'json') as ContentType;
  let body: CompiledBody;
  try {
    body = cachedBody(contentType, target.body_template);
  } catch (err) {
    // Saved templates were checked; one no longer parsing (a library change) fails its deliveries, not the caller.
    if (err instanceof TemplateError) throw new TemplateRenderError(err.message);
    throw err;
  }
  return { body: renderBody(body, eventContext(submission)), contentType: MEDIA_TYPES[contentType] };
}

// --- Extra headers ------------------------------------------------------------------------------------------

/** An HTTP token (RFC 9110): what a header name may be. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
/** Visible ASCII, spaces and tabs: what a header value may hold (no line break, nothing a client would re-encode). */
const VALUE = /^[\t\x20-\x7e]*$/;

/** What is wrong with a webhook's extra headers, each detail naming `headers.<name>`; empty when nothing is. */
export function headerProblems(headers: Record<string, string>): ErrorDetail[] {
  const names = Object.keys(headers);
  if (names.length > EXTRA_HEADERS_MAX)
    return [{ in: 'body', path: 'headers', message: `At most ${EXTRA_HEADERS_MAX} extra headers.` }];
  const problems: ErrorDetail[] = [];
  const seen = new Set<string>();
  const refuse = (name: string, message: string) => problems.push({ in: 'body', path: `headers.${name}`, message });
  for (const name of names) {
    const lower = name.toLowerCase();
    const value = headers[name]!;
    if (!TOKEN.test(name))
      refuse(name, "A header name is an HTTP token of at most 100 letters, digits and !#$%&'*+.^_`|~-.");
    else if (
      (REFUSED_HEADERS as readonly string[]).includes(lower) ||
      REFUSED_HEADER_PREFIXES.some((p) => lower.startsWith(p))
    )
      refuse(name, `The service sets ${name} itself: it cannot be an extra header.`);
    else if (seen.has(lower)) refuse(name, `${name} is given twice (header names are case-insensitive).`);
    else if (typeof value !== 'string' || value.length > HEADER_VALUE_MAX_CHARS)
      refuse(name, `A header value is text of at most ${HEADER_VALUE_MAX_CHARS.toLocaleString('en')} characters.`);
    else if (/[\r\n]/.test(value)) refuse(name, 'A header value cannot hold a line break.');
    else if (!VALUE.test(value)) refuse(name, 'A header value holds visible ASCII characters, spaces and tabs only.');
    seen.add(lower);
  }
  return problems;
}

// --- Checking a webhook's request settings ------------------------------------------------------------------

/** What shapes a webhook's requests besides its provider: as stored, or as a change would leave them. */
export type RequestSettings = {
  body_template: string | null;
  content_type: ContentType;
  headers: Record<string, string>;
};

/**
 * Refuses (400 `validation_failed`, each detail naming its field) settings as a create or an update would
 * leave them: a template, a content type other than `json` or extra headers on another provider than
 * `webhook`; a template that does not parse as its content type reads it; a refused or malformed header.
 * `given` is what the request set: a template made invalid by a new content type alone names `content_type`.
 */
export function checkRequestSettings(provider: string, next: RequestSettings, given: Partial<RequestSettings>): void {
  const details: ErrorDetail[] = [];
  const detail = (path: string, message: string) => details.push({ in: 'body', path, message });
  if (provider !== 'webhook') {
    const only = (what: string) => `Only webhooks of provider \`webhook\` take ${what} (this one is ${provider}).`;
    if (next.body_template !== null) detail('body_template', only('a body template'));
    if (next.content_type !== 'json') detail('content_type', only('a content type other than json'));
    if (Object.keys(next.headers).length) detail('headers', only('extra headers'));
  } else if (next.body_template !== null) {
    try {
      compileBody(next.content_type, next.body_template);
    } catch (err) {
      if (!(err instanceof TemplateError)) throw err;
      const field =
        given.body_template === undefined && given.content_type !== undefined ? 'content_type' : 'body_template';
      detail(field, `The ${next.content_type} template does not parse: ${err.message}`);
    }
  }
  details.push(...headerProblems(next.headers));
  if (details.length)
    throw validationFailed(details, details.length === 1 ? `${details[0]!.path}: ${details[0]!.message}` : undefined);
}
