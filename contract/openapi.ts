import { createRequire } from 'node:module';
import { extendApi, generateSchema } from '@anatine/zod-openapi';
import {
  extractZodObjectShape,
  isAppRoute,
  isAppRouteNoBody,
  isAppRouteOtherResponse,
  isZodObject,
  isZodType,
  type AppRoute,
  type AppRouter,
} from '@ts-rest/core';
import { generateOpenApi } from '@ts-rest/open-api';
import { z } from 'zod';
import { contract, ErrorBody, RateLimitedBody, ValidationErrorBody, type RouteMetadata } from './index.ts';
import * as pub from './public-endpoint.ts';

type Json = Record<string, unknown>;

/** One version number: the package's (package.json), in openapi.json and `intake --version`. */
const PACKAGE_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

/**
 * Tags by path segment. A route is tagged by the last segment of its path that names a resource, so
 * `/v1/forms/{form}/submissions/export` is Submissions and `/v1/forms/{form}/publish` is Forms.
 */
const RESOURCE_TAGS: Record<string, { name: string; description: string }> = {
  me: { name: 'Account', description: 'The calling user, team, role and token.' },
  tokens: { name: 'Tokens', description: 'API tokens of the calling user: list, mint, revoke.' },
  billing: { name: 'Billing', description: "The team's plan, usage, subscription and invoices (read only)." },
  forms: { name: 'Forms', description: 'Forms: create, update, publish, unpublish, delete and restore.' },
  submissions: { name: 'Submissions', description: 'Submissions of a form: list, show, update, delete, bulk actions, export, files.' },
  webhooks: { name: 'Webhooks', description: 'Webhooks that push every clean submission of a form to an endpoint.' },
  deliveries: { name: 'Deliveries', description: 'Webhook delivery attempts and their replay.' },
  'ai-insights': { name: 'Insights', description: "AI summary of the team's week of submissions." },
  insights: { name: 'Insights', description: "AI summary of the team's week of submissions." },
  jobs: { name: 'Jobs', description: 'Background jobs (such as bulk replays) and their progress.' },
};
const TAG_ORDER = ['Account', 'Tokens', 'Billing', 'Forms', 'Submissions', 'Webhooks', 'Deliveries', 'Insights', 'Jobs'];

const REASONS: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted',
  '204': 'No content',
  '301': 'Moved permanently',
  '302': 'Found',
  '303': 'See other',
  '307': 'Temporary redirect',
  '308': 'Permanent redirect',
};

/** What an error status means on this API; 403 is filled in per route with its ability. */
const ERROR_MEANINGS: Record<string, string> = {
  '400': 'Invalid request: `validation_failed` lists every failing field in `details`; malformed JSON is `invalid_json`.',
  '401': 'The bearer token is missing, unknown or revoked (`unauthenticated`).',
  '402': "The team's plan does not include this, or one of its limits is reached.",
  '404': 'Not found. Records of other teams are reported as not found too.',
  '405': 'Method not allowed.',
  '409': 'Conflict with the current state of the resource.',
  '410': 'Gone.',
  '413': 'The request is too large.',
  '415': 'Unsupported content type: send `application/json`.',
  '422': 'The request is well-formed but cannot be processed.',
  '423': "Locked: the team's plan does not include AI features.",
  '429': 'Rate limit reached (`rate_limited`); retry after `Retry-After` seconds.',
  '500': 'Internal error; the body carries no details, the `X-Request-Id` header identifies the request.',
  '408': 'The request body arrived too slowly (under `INTAKE_MIN_BODY_RATE` bytes a second) or not in full within `INTAKE_REQUEST_TIMEOUT_MS`; nothing was kept.',
  '503': 'Temporarily unavailable (`service_unavailable`: the database or object storage cannot be reached); nothing was changed. Retry after `Retry-After` seconds.',
};

/** Calls `visit` on a schema and every schema nested in it (not through `$ref`). */
function eachSchema(schema: unknown, visit: (s: Json) => void): void {
  if (!schema || typeof schema !== 'object') return;
  const s = schema as Json;
  visit(s);
  for (const key of ['items', 'not', 'additionalProperties']) eachSchema(s[key], visit);
  for (const key of ['allOf', 'anyOf', 'oneOf']) for (const sub of (s[key] as unknown[] | undefined) ?? []) eachSchema(sub, visit);
  for (const sub of Object.values((s.properties as Json | undefined) ?? {})) eachSchema(sub, visit);
}

/** Renames a key in place, keeping key order (and so the generated text) stable. */
function renameKey(obj: Json, from: string, to: string): void {
  const entries = Object.entries(obj).map(([k, v]) => [k === from ? to : k, v] as const);
  for (const key of Object.keys(obj)) delete obj[key];
  Object.assign(obj, Object.fromEntries(entries));
}

/** Repairs what the zod → OpenAPI 3.0 conversion gets wrong for any schema. */
function normalizeSchema(s: Json): void {
  // A zod union accepts a value when any member does; `oneOf` would reject a value two members accept
  // (a literal and a plain string, a specific and a generic error body). Discriminated unions stay oneOf.
  if (Array.isArray(s.oneOf) && !s.discriminator) renameKey(s, 'oneOf', 'anyOf');
  // `z.unknown()` / `z.any()` come out as a bare `{ nullable: true }`; with no `type` beside it
  // `nullable` is invalid, and a typeless schema admits every value (null included) anyway.
  const typed = ['type', '$ref', 'allOf', 'anyOf', 'oneOf', 'not'].some((k) => k in s);
  if (!typed && s.nullable === true) {
    delete s.nullable;
    if (!s.description) s.description = 'Any JSON value.';
  }
}

function zodDef(type: z.ZodTypeAny): Json & { typeName: string } {
  return type._def as Json & { typeName: string };
}

/**
 * The generator decides `nullable` by asking the schema to parse `null`; a `z.coerce.*` schema turns
 * null into 0 / "null" / false and so is published as nullable. Walk the zod schema beside its OpenAPI
 * schema and drop `nullable` where the zod type never declared it.
 */
function dropCoercedNullable(type: unknown, schema: unknown): void {
  if (!isZodType(type) || !schema || typeof schema !== 'object' || '$ref' in schema) return;
  const s = schema as Json;
  let inner: z.ZodTypeAny = type;
  let declaredNullable = false;
  for (;;) {
    const def = zodDef(inner);
    if (def.typeName === 'ZodNullable') declaredNullable = true;
    if (['ZodOptional', 'ZodNullable', 'ZodDefault'].includes(def.typeName)) inner = def.innerType as z.ZodTypeAny;
    else if (def.typeName === 'ZodBranded') inner = def.type as z.ZodTypeAny;
    else if (def.typeName === 'ZodEffects' && (def.effect as Json).type !== 'preprocess') inner = def.schema as z.ZodTypeAny;
    else break;
  }
  const def = zodDef(inner);
  if (def.coerce === true && !declaredNullable) delete s.nullable;
  const union = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  switch (def.typeName) {
    case 'ZodObject': {
      const properties = (s.properties as Json | undefined) ?? {};
      for (const [key, value] of Object.entries((inner as z.AnyZodObject).shape)) dropCoercedNullable(value, properties[key]);
      break;
    }
    case 'ZodArray':
      dropCoercedNullable(def.type, s.items);
      break;
    case 'ZodRecord':
      dropCoercedNullable(def.valueType, s.additionalProperties);
      break;
    case 'ZodIntersection':
      dropCoercedNullable(def.left, (s.allOf as unknown[] | undefined)?.[0]);
      dropCoercedNullable(def.right, (s.allOf as unknown[] | undefined)?.[1]);
      break;
    case 'ZodUnion':
    case 'ZodDiscriminatedUnion':
      [...(def.options as Iterable<unknown>)].forEach((option, i) => dropCoercedNullable(option, union?.[i]));
      break;
  }
}

/** The resource tag of a path, e.g. `/v1/forms/{form}/webhooks/{webhook}/deliveries` → Deliveries. */
export function tagOfPath(path: string): string {
  const segments = path.split('/').filter((s) => s && s !== 'v1' && !s.startsWith(':') && !s.startsWith('{'));
  const resource = segments.filter((s) => s in RESOURCE_TAGS).at(-1);
  if (resource) return RESOURCE_TAGS[resource]!.name;
  const first = segments[0] ?? 'default';
  return first.charAt(0).toUpperCase() + first.slice(1);
}

const lowerFirst = (text: string) => (/^[A-Z][a-z]/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text);

function responseDescription(status: string, response: unknown, route: AppRoute, ability: string | null): string {
  const own = isZodType(response) && response.description !== ErrorBody.description ? response.description : undefined;
  if (own) return own;
  if (status === '403') {
    return ability
      ? `The token lacks the \`${ability}\` ability, or the caller may not perform this action.`
      : 'The caller may not perform this action.';
  }
  if (ERROR_MEANINGS[status]) return ERROR_MEANINGS[status]!;
  const reason = REASONS[status] ?? `HTTP ${status}`;
  return route.summary ? `${reason} — ${lowerFirst(route.summary)}.` : `${reason}.`;
}

/** Media type entry of `c.otherResponse({ contentType, body })`, which ts-rest leaves out. */
function otherResponseContent(contentType: string, body: unknown): Json {
  if (isZodType(body)) return { [contentType]: { schema: generateSchema(body, true) } };
  const schema = contentType.startsWith('text/') ? { type: 'string' } : { type: 'string', format: 'binary' };
  return { [contentType]: { schema } };
}

function mapResponses(operation: Json, route: AppRoute, ability: string | null): Json {
  const generated = (operation.responses as Record<string, Json> | undefined) ?? {};
  const out: Json = {};
  for (const [status, response] of Object.entries(route.responses)) {
    const entry: Json = { description: responseDescription(status, response, route, ability) };
    if (/^3\d\d$/.test(status)) {
      entry.headers = {
        Location: { description: 'Where the client should go next.', schema: { type: 'string', format: 'uri' } },
      };
    }
    if (status === '429') {
      entry.headers = {
        'Retry-After': { description: 'Seconds until the rate limit window resets.', schema: { type: 'integer' } },
      };
    }
    const body = isAppRouteOtherResponse(response) ? response.body : response;
    if (isAppRouteOtherResponse(response)) entry.content = otherResponseContent(response.contentType, response.body);
    else if (!isAppRouteNoBody(response) && generated[status]?.content) entry.content = generated[status]!.content;
    const also = (route.metadata as RouteMetadata | undefined)?.alsoAnswers;
    if (status === '200' && also) {
      const more = Object.fromEntries(Object.entries(also).map(([type, schema]) => [type, { schema: generateSchema(schema, true) }]));
      entry.content = { ...((entry.content as Json | undefined) ?? {}), ...more };
    }
    for (const media of Object.values((entry.content as Record<string, Json> | undefined) ?? {})) {
      dropCoercedNullable(body, media.schema);
    }
    out[status] = entry;
  }
  if ('body' in route && isZodType(route.body)) out['408'] = slowBodyResponse();
  out['503'] = unavailableResponse();
  return out;
}

/** Any route with a body can be cut off for a body that crawls (server/http/http-server.ts). */
function slowBodyResponse(): Json {
  return { description: ERROR_MEANINGS['408'], content: jsonContent(ErrorBody) };
}

/** Any route can answer 503 while the database or object storage is unreachable (server/domain/outages.ts). */
function unavailableResponse(): Json {
  return {
    description: ERROR_MEANINGS['503'],
    headers: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } } },
    content: jsonContent(ErrorBody),
  };
}

function zodShape(type: unknown): Record<string, unknown> {
  return isZodObject(type) ? (extractZodObjectShape(type) as Record<string, unknown>) : {};
}

function mapOperation(operation: Json, route: AppRoute): Json {
  const ability = (route.metadata as RouteMetadata | undefined)?.ability ?? null;
  const shapes: Record<string, Record<string, unknown>> = {
    path: zodShape(route.pathParams),
    query: zodShape(route.query),
    header: zodShape(route.headers),
  };
  // The bearer token is documented once, as the security scheme, not as a header parameter.
  const parameters = ((operation.parameters as Json[] | undefined) ?? []).filter(
    (p) => !(p.in === 'header' && String(p.name).toLowerCase() === 'authorization'),
  );
  for (const p of parameters) dropCoercedNullable(shapes[String(p.in)]?.[String(p.name)], p.schema);

  const requestBody = operation.requestBody as Json | undefined;
  if (requestBody && 'body' in route && isZodType(route.body)) {
    const body = route.body;
    for (const media of Object.values(requestBody.content as Record<string, Json>)) dropCoercedNullable(body, media.schema);
    delete requestBody.description;
    if (body.description) requestBody.description = body.description;
    if (!body.isOptional()) requestBody.required = true;
  }
  const responses = mapResponses(operation, route, ability);

  const description = [
    operation.description,
    ability ? `Requires the \`${ability}\` ability.` : 'Requires any valid token; no particular ability.',
  ]
    .filter(Boolean)
    .join('\n\n');
  const out: Json = {
    summary: operation.summary,
    description,
    operationId: operation.operationId,
    tags: [tagOfPath(route.path)],
    security: [{ bearerAuth: [] }],
    'x-ability': ability,
  };
  if (operation.deprecated) out.deprecated = true;
  if (parameters.length) out.parameters = parameters;
  if (requestBody) out.requestBody = requestBody;
  out.responses = responses;
  for (const media of Object.values(responses)) {
    for (const entry of Object.values(((media as Json).content as Record<string, Json> | undefined) ?? {})) eachSchema(entry.schema, normalizeSchema);
  }
  for (const p of parameters) eachSchema(p.schema, normalizeSchema);
  for (const entry of Object.values((requestBody?.content as Record<string, Json> | undefined) ?? {})) eachSchema(entry.schema, normalizeSchema);
  return out;
}

function routesOf(router: AppRouter): AppRoute[] {
  return Object.values(router).flatMap((value) => (isAppRoute(value) ? [value] : routesOf(value)));
}

/** A zod schema as an OpenAPI schema, repaired as every route's are. */
function schemaOf(type: z.ZodTypeAny, useOutput = true): Json {
  const schema = generateSchema(type, useOutput) as Json;
  eachSchema(schema, normalizeSchema);
  return schema;
}

const jsonContent = (type: z.ZodTypeAny): Json => ({ 'application/json': { schema: schemaOf(type) } });
const htmlPage = (what: string): Json => ({ 'text/html': { schema: { type: 'string', description: what } } });

const PUBLIC_TAG = {
  name: 'Public endpoint',
  description:
    'The endpoint websites post their forms to (`<form action="https://…/f/{form}" method="post">`, or `fetch`), with no token. ' +
    'Browsers are redirected, JSON clients answered in JSON. It is not an SDK, CLI or MCP operation: visitors post to it, not API clients.',
};

const UploadedFile = extendApi(z.string().describe(`A file: a part with a filename, at most ${pub.PUBLIC_POST_LIMITS.fileBytes / 1024 / 1024} MB.`), {
  format: 'binary',
});

const MultipartPost = z
  .object(pub.ControlFields)
  .catchall(z.union([pub.FieldText, UploadedFile, z.array(z.union([pub.FieldText, UploadedFile]))]))
  .describe(pub.MULTIPART_RULES);

const EXAMPLE_POST = { name: 'Ada Lovelace', email: 'ada@example.com', message: 'Hello!', _subject: 'Website enquiry', [pub.DEFAULT_HONEYPOT_FIELD]: '' };

/**
 * `POST /f/{form}` and its CORS preflight, described from the zod schemas of contract/public-endpoint.ts
 * (the endpoint itself is server/ingest/router.ts; a test posts to it and checks every answer against this).
 */
function publicEndpointPaths(): Json {
  const L = pub.PUBLIC_POST_LIMITS;
  const parameter = (name: string, where: 'path' | 'header', type: z.ZodTypeAny) => {
    const { description, ...schema } = schemaOf(type, false);
    return { name, in: where, required: where === 'path', description, schema };
  };
  const formParam = parameter('form', 'path', pub.PublicFormParam.shape.form);
  const bodySchema = (type: z.ZodTypeAny, maxProperties: number) => ({ ...schemaOf(type, false), maxProperties });
  const allowOrigin = {
    'Access-Control-Allow-Origin': {
      description: "When the request's `Origin` may post to the form: that origin, or `*` when the form allows any.",
      schema: { type: 'string' },
    },
  };
  const post = {
    summary: 'Post a submission to a form',
    description: [
      'What a website\'s form posts to; no token. Checked in this order: the form is published (404), the `Origin` is allowed (403), ' +
        'the monthly quota (402) and the flood limit per address (429) — before the body is read — then an `Idempotency-Key` seen in the last ' +
        '24 hours (answered as its first submission), the body and its limits (400, 413, 415), the plan\'s uploads (402), the field schema ' +
        '(422), the file storage left (402), the CAPTCHA (422), and the spam filters. Spam is stored and answered exactly like a clean post.',
      `Limits: ${pub.LIMITS_TEXT} Past a limit the post is refused with 413 (400 for a field name over ${L.fieldName} characters or JSON ` +
        'nested too deeply), never truncated, and nothing is stored.',
      'The answer depends on the client: a JSON body, or an `Accept` header preferring `application/json`, gets `201 { ok, id }` and JSON ' +
        'errors; anyone else (a browser posting a form) is redirected (303), and shown an HTML page for a form that takes no posts (404) ' +
        'or a post the form refuses (422). CORS: a post from an allowed origin is answered with `Access-Control-Allow-Origin`.',
    ].join('\n\n'),
    operationId: 'submitForm',
    tags: [PUBLIC_TAG.name],
    security: [],
    parameters: [
      formParam,
      parameter('Idempotency-Key', 'header', pub.IdempotencyKey),
    ],
    requestBody: {
      required: true,
      description: 'The form\'s fields, as a browser posts them (urlencoded, or multipart with files) or as JSON (also `application/*+json`).',
      content: {
        'application/x-www-form-urlencoded': { schema: bodySchema(pub.UrlencodedPost, L.fields), example: EXAMPLE_POST },
        'multipart/form-data': { schema: bodySchema(MultipartPost, L.fields + L.files) },
        'application/json': { schema: bodySchema(pub.JsonPost, L.fields), example: EXAMPLE_POST },
      },
    },
    responses: {
      '201': {
        description:
          'Stored (JSON clients). Spam is answered exactly like this, so a sender cannot tell; a repeated `Idempotency-Key` answers with ' +
          'the first submission\'s `id`.',
        headers: allowOrigin,
        content: jsonContent(pub.SubmissionAccepted),
      },
      '303': {
        description:
          'Stored (browsers and other non-JSON clients): go to `_next` when it is permitted, else to the form\'s `redirect_url`, else to ' +
          'the built-in thank-you page `/f/{form}/thanks`, which links back to the posting page. Spam and repeated keys are answered alike.',
        headers: { Location: { description: 'Where the browser goes next.', schema: { type: 'string', format: 'uri-reference' } } },
      },
      '400': {
        description:
          'The body or a header cannot be read; nothing was stored. `invalid_json` for malformed JSON; `validation_failed` with `details` ' +
          'for a malformed urlencoded or multipart body, invalid UTF-8, NUL characters or unpaired surrogates, an empty or over-long ' +
          'field name, JSON that is not one object or is nested too deeply, a multipart part without a name, an interrupted upload, or an ' +
          `\`Idempotency-Key\` over ${pub.IDEMPOTENCY_KEY_MAX} characters; \`details\` \`in: "path"\` for a malformed percent-escape in the path.`,
        content: jsonContent(ValidationErrorBody),
      },
      '402': {
        description:
          "The team's plan refuses the post; nothing was stored: its monthly submissions are used up (`quota_exceeded`), it has no file " +
          'uploads (`plan_limit_reached`, answered at the first file part), or the files would pass its storage (`plan_limit_reached`, with `limit`).',
        content: jsonContent(pub.PublicPaymentRequiredBody),
      },
      '403': {
        description: "The request's `Origin` is not one of the form's `allowed_origins` (a form without any takes every origin).",
        content: jsonContent(pub.ForbiddenOriginBody),
      },
      '404': {
        description:
          'No published form has this id: unknown, a draft (the message says so), unpublished or deleted. A browser navigating ' +
          '(`Accept` preferring `text/html`) gets an HTML page.',
        content: { ...jsonContent(pub.PublicNotFoundBody), ...htmlPage('A page saying the form takes no submissions.') },
      },
      '413': {
        description:
          'A limit was crossed (too many fields, values or files, a value, file or body too large); nothing was stored. An upload is answered as ' +
          'soon as it crosses the limit, with `Connection: close`.',
        content: jsonContent(pub.PayloadTooLargeBody),
      },
      '415': {
        description: 'The body is not `application/x-www-form-urlencoded`, `multipart/form-data` or JSON.',
        content: jsonContent(pub.UnsupportedMediaTypeBody),
      },
      '422': {
        description:
          'The post is well-formed but the form refuses it; nothing was stored. `validation_failed` with `fields` (per posted field, what ' +
          'to fix) when it breaks the field schema; `captcha_failed` when the CAPTCHA token is missing or refused. JSON clients get JSON, ' +
          'everyone else an HTML page listing what to fix.',
        content: { ...jsonContent(pub.PostRefusedBody), ...htmlPage('A page listing what to fix, with a link back to the posting page.') },
      },
      '429': {
        description:
          'Too many posts from this address to this form this minute (the flood limit); nothing was stored. Below it, past the rate ' +
          'limit, posts are stored as spam (`rate_limited`) and answered as usual.',
        headers: { 'Retry-After': { description: 'Seconds until the window resets (as `retry_after`).', schema: { type: 'integer' } } },
        content: jsonContent(RateLimitedBody),
      },
      '500': {
        description: 'The files could not be stored, or another failure on our side; nothing was kept. The `X-Request-Id` header identifies the request.',
        content: jsonContent(ErrorBody),
      },
      '408': slowBodyResponse(),
      '503': unavailableResponse(),
    },
  };
  const options = {
    summary: 'CORS preflight for a form',
    description:
      'What a browser asks before a cross-origin post it cannot send plainly (JSON, an `Idempotency-Key`). When the `Origin` may post to ' +
      "the form (any origin when its `allowed_origins` is empty), the 204 carries the `Access-Control-Allow-*` headers; otherwise it has " +
      'none, and the browser does not send the post.',
    operationId: 'preflightForm',
    tags: [PUBLIC_TAG.name],
    security: [],
    parameters: [formParam],
    responses: {
      '204': {
        description: 'No content; the CORS headers when the origin is allowed.',
        headers: {
          ...allowOrigin,
          'Access-Control-Allow-Methods': { description: '`POST, OPTIONS`.', schema: { type: 'string' } },
          'Access-Control-Allow-Headers': { description: '`Content-Type, Accept, Idempotency-Key, X-Requested-With`.', schema: { type: 'string' } },
          'Access-Control-Max-Age': { description: 'Seconds the browser may keep the answer (600).', schema: { type: 'integer' } },
        },
      },
      '400': { description: '`validation_failed`, `details` `in: "path"`: a malformed percent-escape in the path.', content: jsonContent(ValidationErrorBody) },
      '404': { description: 'No published form has this id.', content: jsonContent(pub.PublicNotFoundBody) },
    },
  };
  return { '/f/{form}': { options, post } };
}

/** The document-level tag list: every tag in use, in a fixed order, with its description. */
function tagList(router: AppRouter): Json[] {
  const used = new Set(routesOf(router).map((route) => tagOfPath(route.path)));
  const known = TAG_ORDER.filter((name) => used.has(name));
  const other = [...used].filter((name) => !TAG_ORDER.includes(name)).sort();
  return [...known, ...other].map((name) => ({
    name,
    description: Object.values(RESOURCE_TAGS).find((t) => t.name === name)?.description ?? `${name} operations.`,
  }));
}

/**
 * The OpenAPI document of a ts-rest router (the whole contract unless told otherwise). The whole contract's
 * document also describes the public form endpoint, which is no contract route (see contract/public-endpoint.ts).
 */
export function buildOpenApi(router: AppRouter = contract): Json {
  const withPublicEndpoint = router === contract;
  const doc = generateOpenApi(
    router,
    {
      info: {
        title: 'Intake API',
        version: PACKAGE_VERSION,
        description:
          'Intake collects form submissions from websites, filters spam and lets you list, edit and export them. ' +
          'Every request carries `Authorization: Bearer <token>`; each operation lists the ability it needs ' +
          '(also as `x-ability`).' +
          (withPublicEndpoint ? ' The exception is the public endpoint `POST /f/{form}` that websites post their forms to, with no token.' : ''),
        license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
      },
      servers: [{ url: '/', description: 'This Intake server' }],
      tags: [...(withPublicEndpoint ? [PUBLIC_TAG] : []), ...tagList(router)],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An Intake API token (`intk_…`).' },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    { setOperationId: true, operationMapper: (op, route) => mapOperation(op as Json, route) as typeof op },
  );
  if (withPublicEndpoint) doc.paths = { ...publicEndpointPaths(), ...doc.paths } as typeof doc.paths;
  const schemas = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  for (const schema of Object.values(schemas)) eachSchema(schema, normalizeSchema);
  return doc as unknown as Json;
}

/** The committed text of openapi.json: `npm run openapi` writes it, a test compares it byte for byte. */
export function openApiText(router: AppRouter = contract): string {
  return `${JSON.stringify(buildOpenApi(router), null, 2)}\n`;
}
