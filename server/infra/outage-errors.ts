/**
 * Which errors mean Postgres or the object store cannot be reached: the facts of the drivers (socket
 * codes, SQLSTATEs, node-postgres messages), below both the storage and database adapters that watch for
 * them and the domain that answers them 503 (server/domain/shared/outages.ts). It imports nothing of the project.
 */

/** Socket-level failures reaching Postgres or the object store. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * Postgres SQLSTATEs of an unavailable server: class 08 (connection exception), 57P01–57P03 (admin
 * shutdown, crash shutdown, cannot connect now) and 53300 (too many connections). Also those of a
 * statement or transaction cut by the per-connection limits (server/infra/db/database.ts): 57014 (cancelled
 * by statement_timeout — the database is too busy to answer in time, and nothing was committed) and
 * 25P03 (idle_in_transaction_session_timeout closed the session). The caller can retry either.
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

/**
 * True when `err` (or an error it wraps, through `cause`) says Postgres or the object store is unreachable.
 * The walk ends at an error `settled` accepts: one that already carries its own meaning (the domain's
 * AppError), whatever it wraps.
 */
export function isUnreachable(err: unknown, settled: (e: object) => boolean = () => false): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (settled(e)) return false;
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || (/^[0-9A-Z]{5}$/.test(code) && unavailableSqlState(code)))) return true;
    if (typeof message === 'string' && CONNECTION_MESSAGES.some((re) => re.test(message))) return true;
  }
  return false;
}
