import { createRequire } from 'node:module';
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
import type { z } from 'zod';
import { contract, ErrorBody, type RouteMetadata } from '../../contract/index.ts';
import { PUBLIC_TAG, publicEndpointPaths } from './public-endpoint.ts';
import { componentMark, Components, type Context } from './components.ts';
import { errorCodeSchema } from './error-codes.ts';
import { toJsonSchema } from './openapi31.ts';
import { documentRateLimit, RATE_LIMIT_HEADERS } from './rate-limits.ts';
import {
  dropCoercedNullable,
  eachSchema,
  hasDefaultedProperty,
  normalizeSchema,
  requireDefaulted,
  schemaOf,
  type Json,
} from './schema-repairs.ts';
import { eventComponentName, webhooksSection } from './webhooks.ts';
import { ERROR_MEANINGS, slowBodyResponse, unavailableResponse } from './shared-responses.ts';

/** One version number: the package's (package.json), in openapi.json and `intake --version`. */
const PACKAGE_VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/**
 * Tags by path segment. A route is tagged by the last segment of its path that names a resource, so
 * `/v1/forms/{form}/submissions/export` is Submissions and `/v1/forms/{form}/publish` is Forms.
 */
const RESOURCE_TAGS: Record<string, { name: string; description: string }> = {
  me: { name: 'Account', description: 'The calling user, team, role and token.' },
  tokens: { name: 'Tokens', description: 'API tokens of the calling user: list, mint, revoke.' },
  billing: { name: 'Billing', description: "The team's plan, usage, subscription and invoices (read only)." },
  forms: { name: 'Forms', description: 'Forms: create, update, publish, unpublish, delete and restore.' },
  submissions: {
    name: 'Submissions',
    description: 'Submissions of a form: list, show, update, delete, bulk actions, export, files.',
  },
  webhooks: { name: 'Webhooks', description: 'Webhooks that push every clean submission of a form to an endpoint.' },
  deliveries: { name: 'Deliveries', description: 'Webhook delivery attempts and their replay.' },
  'ai-insights': { name: 'Insights', description: "AI summary of the team's week of submissions." },
  insights: { name: 'Insights', description: "AI summary of the team's week of submissions." },
  jobs: { name: 'Jobs', description: 'Background jobs (such as bulk replays) and their progress.' },
};
const TAG_ORDER = [
  'Account',
  'Tokens',
  'Billing',
  'Forms',
  'Submissions',
  'Webhooks',
  'Deliveries',
  'Insights',
  'Jobs',
];

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
  if (isZodType(body)) return { [contentType]: { schema: schemaOf(body) } };
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
    else if (!isAppRouteNoBody(response) && generated[status]?.content) {
      entry.content = generated[status]!.content;
      for (const media of Object.values(entry.content as Record<string, Json>)) requireDefaulted(body, media.schema);
    }
    const also = (route.metadata as RouteMetadata | undefined)?.alsoAnswers;
    if (status === '200' && also) {
      const more = Object.fromEntries(
        Object.entries(also).map(([type, schema]) => [type, { schema: schemaOf(schema) }]),
      );
      entry.content = { ...((entry.content as Json | undefined) ?? {}), ...more };
    }
    for (const media of Object.values((entry.content as Record<string, Json> | undefined) ?? {})) {
      dropCoercedNullable(body, media.schema);
    }
    out[status] = entry;
  }
  if ('body' in route && isZodType(route.body)) out['408'] = slowBodyResponse();
  out['503'] = unavailableResponse();
  documentRateLimit(out, ((route.metadata as RouteMetadata | undefined)?.cost.budget ?? 'none') !== 'none');
  return out;
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
    for (const media of Object.values(requestBody.content as Record<string, Json>))
      dropCoercedNullable(body, media.schema);
    delete requestBody.description;
    if (body.description) requestBody.description = body.description;
    if (!body.isOptional()) requestBody.required = true;
    if ((route.metadata as RouteMetadata | undefined)?.uploads) {
      (requestBody.content as Record<string, Json>)['multipart/form-data'] = {
        schema: {
          type: 'object',
          description:
            'Each part a field (text) or a file (binary); the client as parts `client[ip]`, `client[user_agent]`, `client[referrer]`.',
          additionalProperties: {
            oneOf: [{ type: 'string' }, { type: 'string', format: 'binary' }],
          },
        },
      };
    }
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
    for (const entry of Object.values(((media as Json).content as Record<string, Json> | undefined) ?? {}))
      eachSchema(entry.schema, normalizeSchema);
  }
  for (const p of parameters) eachSchema(p.schema, normalizeSchema);
  for (const entry of Object.values((requestBody?.content as Record<string, Json> | undefined) ?? {}))
    eachSchema(entry.schema, normalizeSchema);
  return out;
}

function routesOf(router: AppRouter): AppRoute[] {
  return Object.values(router).flatMap((value) => (isAppRoute(value) ? [value] : routesOf(value)));
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
          (withPublicEndpoint
            ? ' The exception is the public endpoint `POST /f/{form}` that websites post their forms to, with no token.'
            : ''),
        license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
      },
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
  const paths = doc.paths as unknown as Record<string, Json>;
  const webhooks = (withPublicEndpoint ? webhooksSection(eventSchema) : {}) as Record<string, Json>;
  const components = new Components();
  const slots = [...schemaSlots(paths), ...schemaSlots(webhooks, 'output', eventComponentName)];
  for (const slot of slots) components.note(slot.holder[slot.key], slot.context);
  for (const slot of slots) {
    slot.mark = componentMark(slot.holder[slot.key]);
    slot.holder[slot.key] = components.extract(slot.holder[slot.key] as Json, slot.context);
  }
  // A request body with a defaulted property is named whole, its schemas inline (see Components.extract).
  const defaulted = new Set(
    slots.filter((s) => s.operation && hasDefaultedProperty(s.holder[s.key])).map((s) => s.operation!),
  );
  for (const slot of slots) {
    const schema = slot.holder[slot.key] as Json;
    if (slot.operation && defaulted.has(slot.operation)) {
      const op = slot.operation;
      if (!('$ref' in (op.requestBody as Json)))
        op.requestBody = components.nameRequestBody(slot.mark ?? slot.bodyName!, op.requestBody as Json);
    } else if (slot.bodyName && schema.type !== 'string') {
      slot.holder[slot.key] = components.name(slot.bodyName, schema);
    }
  }
  const errorBody = components.schemas.get('ErrorBody');
  if (errorBody) errorBody.properties = { ...(errorBody.properties as Json), error: errorCodeSchema() };
  const schemas = components.sorted();
  for (const schema of Object.values(schemas)) toJsonSchema(schema as Json);
  for (const slot of slots) toJsonSchema(slot.holder[slot.key] as Json);
  const usesRateLimits = JSON.stringify(paths).includes('"#/components/headers/');
  const { securitySchemes } = doc.components as Json;
  return {
    openapi: '3.1.0',
    info: doc.info,
    servers: SERVERS,
    tags: doc.tags,
    paths,
    ...(withPublicEndpoint ? { webhooks } : {}),
    components: {
      schemas,
      ...(components.requestBodies.size ? { requestBodies: components.sorted(components.requestBodies) } : {}),
      ...(usesRateLimits ? { headers: RATE_LIMIT_HEADERS } : {}),
      securitySchemes,
    },
    security: doc.security,
  };
}

/** A webhook body: the schema of the event as Intake sends it. */
function eventSchema(_event: string, type: z.ZodTypeAny): Json {
  const schema = schemaOf(type);
  dropCoercedNullable(type, schema);
  return schema;
}

/**
 * `/v1` is canonical; `/api/v1` (the spec's prefix) serves the same routes. The paths keep their `/v1`
 * (the SDK's `paths['/v1/…']` types and every client built on them use it), so the servers are the roots
 * those two prefixes hang from; the public form endpoint is served at the root only.
 */
const SERVERS = [
  { url: '/', description: 'This Intake server: the API under `/v1` (canonical).' },
  { url: '/api', description: 'The same API under `/api/v1`, an exact alias of `/v1` (the prefix the spec names).' },
];

/** Where a schema sits; `operation` is set on a request body's schema, one an API client sends. */
type Slot = { holder: Json; key: string; context: Context; bodyName?: string; operation?: Json; mark?: string };

const pascal = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);
const MEDIA_NAMES: Record<string, string> = {
  'application/x-www-form-urlencoded': 'Urlencoded',
  'multipart/form-data': 'Multipart',
};

/** Every schema of the operations (parameters, bodies, headers), with the name a top-level body gets when it has none. */
function schemaSlots(items: Record<string, Json>, context?: Context, bodyName?: (event: string) => string): Slot[] {
  const names = Object.keys(items);
  const slots: Slot[] = [];
  for (const [i, item] of Object.values(items).entries()) {
    for (const op of Object.values(item) as Json[]) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue;
      const id = pascal(String(op.operationId));
      for (const p of (op.parameters as Json[] | undefined) ?? [])
        if (p.schema) slots.push({ holder: p, key: 'schema', context: 'input' });
      const requestContent = ((op.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
      for (const [media, entry] of Object.entries(requestContent)) {
        slots.push({
          holder: entry,
          key: 'schema',
          context: context ?? 'input',
          bodyName: bodyName ? bodyName(names[i]!) : `${id}${MEDIA_NAMES[media] ?? ''}Body`,
          ...(context ? {} : { operation: op }),
        });
      }
      const responses = op.responses as Record<string, Json>;
      const successes = Object.keys(responses).filter((status) => /^2/.test(status));
      for (const [status, response] of Object.entries(responses)) {
        const kind = /^2/.test(status) ? (successes.length > 1 ? `${status}Response` : 'Response') : `${status}Error`;
        for (const [media, entry] of Object.entries((response.content ?? {}) as Record<string, Json>)) {
          if (entry.schema)
            slots.push({
              holder: entry,
              key: 'schema',
              context: 'output',
              bodyName: `${id}${MEDIA_NAMES[media] ?? ''}${kind}`,
            });
        }
        for (const header of Object.values((response.headers ?? {}) as Record<string, Json>)) {
          if (header.schema) slots.push({ holder: header, key: 'schema', context: 'output' });
        }
      }
    }
  }
  return slots;
}

/** The committed text of openapi.json: `npm run openapi` writes it, a test compares it byte for byte. */
export function openApiText(router: AppRouter = contract): string {
  return `${JSON.stringify(buildOpenApi(router), null, 2)}\n`;
}
