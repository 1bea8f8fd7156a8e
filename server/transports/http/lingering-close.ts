import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export type LingerLimits = {
  /** The longest a connection drains after its answer. */
  totalMs: number;
  /** Closed sooner once the client sends nothing for this long. */
  idleMs: number;
  /** Closed sooner once this much of the rest of the body has been read. */
  bytes: number;
  /** Connections draining at once in this process; past it an answer closes its connection at once. */
  sockets: number;
};

export const LINGER_LIMITS: LingerLimits = {
  // nginx's lingering_time: long enough for a browser on a slow uplink to notice the answer and stop.
  totalMs: 30_000,
  // nginx's lingering_timeout: a client that stopped sending has read the answer or gone away.
  idleMs: 5_000,
  // The rest of a file a few times the 10 MB upload limit (a phone video, a scan); a sender of more is cut.
  bytes: 32 * 1024 * 1024,
  // A burst of refused uploads is drained; a flood of them gets the plain close and holds nothing.
  sockets: 64,
};

/**
 * Lingering close, as nginx does it, for an answer given while the body is still arriving: closing on a client
 * still sending makes its kernel reset the connection, often before it has read the answer. The socket is
 * half-closed once flushed and the rest of the body discarded until it ends or a bound is reached.
 */
export function lingeringClose(limits: LingerLimits = LINGER_LIMITS) {
  const draining = new Set<Socket>();
  return (req: IncomingMessage, res: ServerResponse): void => {
    res.setHeader('Connection', 'close');
    const socket = req.socket;
    // A destroyed request has let go of its socket (and closed it): there is nothing to drain.
    if (req.destroyed || socket.destroyed || draining.has(socket) || draining.size >= limits.sockets) return;
    draining.add(socket);
    const close = () => socket.destroy();
    const deadline = setTimeout(close, limits.totalMs);
    socket.once('close', () => {
      draining.delete(socket);
      clearTimeout(deadline);
    });
    socket.setTimeout(limits.idleMs, close);
    let read = 0;
    // The body's reader has given up (busboy unpiped, a parser paused): nobody else may see the rest.
    req.removeAllListeners('data');
    req.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > limits.bytes) close();
    });
    req.resume();
    res.once('finish', () => {
      if (req.complete) return; // nothing left unread: Node's own close after a `Connection: close` answer stands
      // Node destroys a `Connection: close` socket once its answer is flushed (destroySoon): keep it open
      // for reading instead, half-closed, so the client sees the end of the answer while it finishes sending.
      socket.removeListener('finish', socket.destroy);
      socket.end();
      req.once('end', close);
    });
  };
}
