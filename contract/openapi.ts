import { generateOpenApi } from '@ts-rest/open-api';
import type { AppRoute } from '@ts-rest/core';
import { contract, type RouteMetadata } from './index.ts';

type Json = Record<string, unknown>;

/** `z.unknown()` / `z.any()` come out typeless; give them an explicit "any value" schema. */
function sanitize(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(sanitize);
  if (node && typeof node === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) out[k] = sanitize(v);
    return out;
  }
  return node;
}

function mapOperation(operation: Json, route: AppRoute): Json {
  const meta = route.metadata as RouteMetadata | undefined;
  const parameters = ((operation.parameters as Json[] | undefined) ?? []).filter(
    (p) => !(p.in === 'header' && String(p.name).toLowerCase() === 'authorization'),
  );
  const ability = meta?.ability ?? null;
  const description = [
    operation.description,
    ability ? `Requires the \`${ability}\` ability.` : 'Requires any valid token.',
  ]
    .filter(Boolean)
    .join('\n\n');
  const out: Json = { ...operation, description, security: [{ bearerAuth: [] }], 'x-ability': ability };
  if (parameters.length) out.parameters = parameters;
  else delete out.parameters;
  return out;
}

/** The OpenAPI document of the whole contract; `npm run openapi` writes it to openapi.json. */
export function buildOpenApi(): Json {
  const doc = generateOpenApi(
    contract,
    {
      info: {
        title: 'Intake API',
        version: '1.0.0',
        description:
          'Intake collects form submissions, filters spam, delivers webhooks and summarises them with AI. ' +
          'Every request carries `Authorization: Bearer <token>`; each operation lists the ability it needs.',
        license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
      },
      servers: [{ url: '/', description: 'This Intake server' }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An Intake API token (`intk_…`).' },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    { setOperationId: true, operationMapper: (op, route) => mapOperation(op as Json, route) as typeof op },
  );
  return sanitize(doc) as Json;
}

export function openApiText(): string {
  return `${JSON.stringify(buildOpenApi(), null, 2)}\n`;
}
