import { createRequire } from 'node:module';

/** Intake's version (package.json): in logs, the User-Agent of webhook requests, the MCP server's info. */
export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
