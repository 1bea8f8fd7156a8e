import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { clusterDir, startEmbeddedPostgres } from '../../server/infra/db/embedded-postgres.ts';
import { startEmbeddedS3, type EmbeddedS3 } from '../../server/infra/storage/embedded-s3.ts';

/**
 * A Postgres and an S3 server of one test file's own, to stop and start again under running processes
 * (the run's shared ones serve other files in parallel). Both come back on the port they had, as a
 * restarted server does.
 */
export type PrivatePostgres = { url: string; stop(): void; start(): void };
export type PrivateS3 = {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Keys of the objects stored under `prefix`, read from the server's directory (works while it is stopped). */
  keys(prefix: string): string[];
};

const isRoot = process.getuid?.() === 0;

function asPostgres(): { uid?: number; gid?: number } {
  if (!isRoot) return {};
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  };
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'intake-faults-pg-'));
  fs.chmodSync(dataDir, 0o755);
  const embedded = await startEmbeddedPostgres(dataDir);
  const dir = clusterDir(dataDir);
  // The postmaster's own command line (binary, port, settings), for starting it again exactly as it was.
  const opts = fs.readFileSync(path.join(dir, 'postmaster.opts'), 'utf8');
  // `/path/to/postgres "-D" "<dir>" "-p" "<port>" …`: the binary unquoted, each argument quoted.
  const binary = opts.slice(0, opts.indexOf(' "'));
  const args = [...opts.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
  const pgCtl = path.join(path.dirname(binary), 'pg_ctl');
  const serverArgs = args.filter((_, i, a) => a[i] !== '-D' && a[i - 1] !== '-D');
  const pgctl = (...more: string[]) =>
    execFileSync(pgCtl, [...more, '-D', dir], {
      ...asPostgres(),
      env: { ...process.env, LC_ALL: 'C.UTF-8' },
      stdio: 'pipe',
      timeout: 60_000,
    });
  let running = true;
  afterAll(async () => {
    if (running) await embedded.stop();
    else fs.rmSync(path.join(dir, 'postmaster.pid'), { force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (dir !== path.join(dataDir, 'postgres')) fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    url: embedded.url,
    stop() {
      pgctl('stop', '-w', '-m', 'fast');
      running = false;
    },
    start() {
      const quoted = serverArgs.map((a) => (a === '' ? "''" : /[\s']/.test(a) ? `'${a}'` : a)).join(' ');
      pgctl('start', '-w', '-t', '60', '-l', path.join(dir, 'server.log'), '-o', quoted);
      running = true;
    },
  };
}

/** Past this many bytes of one connection's request, the S3 proxy slows it down (see throttledProxy). */
const SLOW_AFTER_BYTES = 1024 * 1024;
const SLOW_CHUNK_DELAY_MS = 40;

/**
 * A TCP proxy in front of the private S3 that passes small requests at full speed and slows the rest of a
 * large one (a pause after each chunk past the first MB: a 9 MB upload takes seconds, not milliseconds), so
 * a test can stop storage while a big upload is under way whatever the machine's speed. `close` refuses
 * connections and cuts the open ones, as a stopped server does; `listen` opens the same port again.
 */
function throttledProxy(target: () => number) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target(), '127.0.0.1');
    sockets.add(client).add(upstream);
    let sent = 0;
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      sent += chunk.length;
      if (sent > SLOW_AFTER_BYTES) {
        client.pause();
        setTimeout(() => client.resume(), SLOW_CHUNK_DELAY_MS);
      }
    });
    client.on('end', () => upstream.end());
    upstream.pipe(client);
    const end = () => {
      for (const s of [client, upstream]) {
        s.destroy();
        sockets.delete(s);
      }
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  return {
    listen: (port = 0) =>
      new Promise<number>((resolve) =>
        server.listen(port, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
      ),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

export async function startPrivateS3(bucket: string): Promise<PrivateS3> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'intake-faults-s3-'));
  let server: EmbeddedS3 | null = await startEmbeddedS3(dataDir, bucket);
  const s3Port = Number(new URL(server.url).port);
  const proxy = throttledProxy(() => s3Port);
  const port = await proxy.listen();
  afterAll(async () => {
    await proxy.close();
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const url = new URL(server.url);
  url.port = String(port);
  return {
    url: url.toString().replace(/\/$/, ''),
    async stop() {
      await proxy.close();
      await server?.stop();
      server = null;
    },
    async start() {
      server = await startEmbeddedS3(dataDir, bucket, { port: s3Port });
      await proxy.listen(port);
    },
    keys(prefix) {
      // s3rver keeps each object as `<key>._S3rver_object` (with its metadata beside it) under the bucket's folder.
      const root = path.join(dataDir, 's3', bucket);
      if (!fs.existsSync(root)) return [];
      return (fs.readdirSync(root, { recursive: true }) as string[])
        .filter((f) => f.endsWith('._S3rver_object'))
        .map((f) => f.slice(0, -'._S3rver_object'.length).split(path.sep).join('/'))
        .filter((k) => k.startsWith(prefix));
    },
  };
}
