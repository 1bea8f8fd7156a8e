/**
 * A child process that opens many keep-alive connections to a server and leaves them idle (a process of
 * its own: 10,000 sockets on each side would pass one process's descriptor limit). Each connection makes
 * one request so the server holds it as an idle keep-alive connection, then says nothing.
 *
 *   node test/support/idle-connections.ts <host> <port> <count>
 *
 * Prints one JSON line `{ "open": n, "failed": m }` once every connection has had its answer, then waits
 * for stdin to close, then prints `{ "stillOpen": k }` and exits.
 */
import net from 'node:net';

const [host = '127.0.0.1', portText = '0', countText = '10000'] = process.argv.slice(2);
const port = Number(portText);
const count = Number(countText);
const BATCH = 250;

const sockets: net.Socket[] = [];
let failed = 0;

function openOne(): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    let answer = '';
    const done = (ok: boolean) => {
      if (!ok) failed += 1;
      resolve();
    };
    socket.setEncoding('utf8');
    socket.once('error', () => done(false));
    socket.on('data', function onData(chunk: string) {
      answer += chunk;
      if (/\r\n\r\n[\s\S]*\}/.test(answer)) {
        socket.off('data', onData);
        sockets.push(socket);
        done(/^HTTP\/1\.1 200/.test(answer));
      }
    });
    socket.once('connect', () =>
      socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`),
    );
  });
}

for (let opened = 0; opened < count; opened += BATCH) {
  await Promise.all(Array.from({ length: Math.min(BATCH, count - opened) }, openOne));
}
process.stdout.write(`${JSON.stringify({ open: sockets.length, failed })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  const stillOpen = sockets.filter((s) => !s.destroyed && s.readyState === 'open').length;
  process.stdout.write(`${JSON.stringify({ stillOpen })}\n`);
  for (const s of sockets) s.destroy();
  process.exit(0);
});
