/**
 * Which driver errors mean Postgres or the object store cannot be reached (socket codes, SQLSTATEs, pg
 * messages). Imports nothing, so adapters and the domain's 503 (domain/shared/outages.ts) can both use it.
 */

/** Socket-level failures reaching Postgres or the object store. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * SQLSTATEs of an unavailable server (class 08, 57P01–57P03, 53300), and of work cut by the per-connection
 * limits (57014 statement_timeout, 25P03 idle in transaction): nothing was committed, and a retry may pass.
 */
function unavailableSqlState(code: string): boolean {
  return code.startsWith('08') || ['57P01', '57P02', '57P03', '53300', '57014', '25P03'].includes(code);
}

/** What node-postgres and pg-pool say when a connection dies or none can be had in time. */
const CONNECTION_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error and is not queryable/,
  /^Client was closed and is not queryable/,
  /^Cannot use a pool after calling end on the pool/,
];

/** Whether `err` or its `cause` chain says a dependency is unreachable; stops at an error `settled` accepts. */
export function isUnreachable(err: unknown, settled: (e: object) => boolean = () => false): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (settled(e)) return false;
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (
      typeof code === 'string' &&
      (NETWORK_CODES.has(code) || (/^[0-9A-Z]{5}$/.test(code) && unavailableSqlState(code)))
    )
      return true;
    if (typeof message === 'string' && CONNECTION_MESSAGES.some((re) => re.test(message))) return true;
  }
  return false;
}
