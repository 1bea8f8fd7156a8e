import { readFileSync, writeFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';

export const OPENAPI_JSON = new URL('../openapi.json', import.meta.url);
export const OPENAPI_TYPES = new URL('./openapi-types.ts', import.meta.url);

const HEADER = `/**
 * Types of the Intake REST API for plain-fetch users, generated from openapi.json by openapi-typescript.
 * Do not edit: run \`node sdk/generate-types.ts\`. A test fails when this file drifts from openapi.json.
 */

`;

/** The text of sdk/openapi-types.ts for the given openapi.json text. */
export async function generateOpenApiTypes(openapiText: string): Promise<string> {
  const ast = await openapiTS(JSON.parse(openapiText), {
    silent: true,
    // `export type Submission = components['schemas']['Submission']` for every named component.
    rootTypes: true,
    rootTypesNoSchemaPrefix: true,
    rootTypesKeepCasing: true,
  });
  return HEADER + astToString(ast);
}

if (import.meta.main) {
  writeFileSync(OPENAPI_TYPES, await generateOpenApiTypes(readFileSync(OPENAPI_JSON, 'utf8')));
  console.log('wrote sdk/openapi-types.ts');
}
