import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { withClient } from './databases.ts';

/** Debian's PostgreSQL 15, which `make test-citus`'s cluster runs on (scripts/test-citus.sh). */
const PGBIN = '/usr/lib/postgresql/15/bin';

export type CitusNode = { host: string; port: number };

async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs a PostgreSQL tool as the `postgres` OS user when this process is root (initdb refuses root). */
function asPostgres(tool: string, args: string[]): void {
  const command = [path.join(PGBIN, tool), ...args];
  if (process.getuid?.() === 0) {
    execFileSync('su', ['postgres', '-s', '/bin/sh', '-c', command.map((a) => `'${a}'`).join(' ')], {
      stdio: 'pipe',
    });
  } else {
    execFileSync(command[0]!, command.slice(1), { stdio: 'pipe' });
  }
}

/** The directories of the nodes this file started. */
const started: string[] = [];

// Registered as the file imports this module: a hook registered inside a test would never run.
afterAll(() => {
  for (const dir of started.splice(0)) {
    try {
      asPostgres('pg_ctl', ['-D', path.join(dir, 'data'), '-m', 'immediate', '-w', 'stop']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
});

/**
 * One more Citus node on loopback, as the cluster's own are made (trust auth, `citus` preloaded), in a directory
 * of its own; stopped and removed after the file. The caller creates its database and adds it to a coordinator.
 */
export async function startCitusNode(): Promise<CitusNode> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'intake-citus-node-'));
  fs.chmodSync(dir, 0o755);
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir]);
  const data = path.join(dir, 'data');
  const port = await freePort();
  asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres']);
  fs.appendFileSync(
    path.join(data, 'postgresql.conf'),
    [
      "shared_preload_libraries = 'citus'",
      "listen_addresses = '127.0.0.1'",
      `port = ${port}`,
      `unix_socket_directories = '${dir}'`,
      'max_connections = 200',
      'max_prepared_transactions = 200',
      '',
    ].join('\n'),
  );
  started.push(dir);
  asPostgres('pg_ctl', ['-D', data, '-l', path.join(dir, 'server.log'), '-w', 'start']);
  return { host: '127.0.0.1', port };
}

/**
 * A new node (startCitusNode) joined to the cluster of the coordinator database at `url`: that database made on
 * it with the extension, then `citus_add_node`. It holds no shard until some are moved onto it.
 */
export async function addCitusNode(url: string): Promise<CitusNode> {
  const node = await startCitusNode();
  const at = (database: string) => `postgres://postgres@${node.host}:${node.port}/${database}`;
  const name = new URL(url).pathname.slice(1);
  await withClient(at('postgres'), (c) => c.query(`create database "${name}"`));
  await withClient(at(name), (c) => c.query('create extension citus'));
  await withClient(url, (c) => c.query('select citus_add_node($1, $2)', [node.host, node.port]));
  return node;
}
