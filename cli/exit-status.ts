import { IntakeError } from '../sdk/index.ts';

/** Exit status by error class (documented in README "The CLI" and docs/cli.md). */
export const EXIT = { server: 1, usage: 2, auth: 3, notFound: 4, conflict: 5, rateLimited: 6 } as const;

/** A command line the CLI cannot run: exit status 2, as commander's own usage errors. */
export class UsageError extends Error {}

function exitFor(err: IntakeError): number {
  if (err.status === 401 || err.status === 403 || err.status === 402) return EXIT.auth;
  if (err.status === 404) return EXIT.notFound;
  if (err.status === 409 || err.status === 412 || err.status === 423) return EXIT.conflict;
  if (err.status === 429) return EXIT.rateLimited;
  if (err.status === 400 || err.status === 413 || err.status === 415) return EXIT.usage;
  return EXIT.server;
}

const HINTS: Record<string, string> = {
  unauthenticated: 'check INTAKE_TOKEN (or run `intake login`)',
  forbidden: 'the token lacks this ability: create one that has it (`intake tokens create --abilities …`)',
  not_found: 'check the id (and that it belongs to your team)',
  rate_limited: 'wait and try again',
  already_running: 'wait for the time given, then try again',
  plan_lacks_ai: 'AI insights need the pro, team or scale plan',
  validation_failed: 'see `--help` for the options',
  precondition_failed: 'it changed since you read it: read it again (its etag), then retry with the new one',
};

/** Reports an error on stderr (the API's message, its details and a hint) and exits with its class's status. */
export function fail(err: unknown): never {
  if (err instanceof IntakeError) {
    const hint = HINTS[err.code];
    process.stderr.write(`intake: ${err.message}${err.status ? ` (${err.status} ${err.code})` : ''}\n`);
    const extra = err.body as { details?: Array<{ path: string; message: string }>; retry_after?: number };
    for (const d of extra.details ?? []) process.stderr.write(`  ${d.path}: ${d.message}\n`);
    if (extra.retry_after !== undefined) process.stderr.write(`  retry after ${extra.retry_after} s\n`);
    if (hint) process.stderr.write(`hint: ${hint}\n`);
    process.exit(exitFor(err));
  }
  if (err instanceof UsageError) {
    process.stderr.write(`intake: ${err.message}\n`);
    process.exit(EXIT.usage);
  }
  process.stderr.write(`intake: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(EXIT.server);
}
