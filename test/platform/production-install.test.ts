import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { intakeProcesses, readImage, serviceEnvironment } from '../../scripts/deploy-files.ts';
import { clusterDir, freePort } from '../../server/infra/db/embedded-postgres.ts';
import { startHttpsReceiver } from '../support/https-receiver.ts';
import { captureLogs } from '../support/processes.ts';
import { startPrivatePostgres, startPrivateS3 } from '../support/private-services.ts';
import { startSmtpTestServer } from '../support/smtp.ts';
import { serverProcessEnv } from '../support/tls.ts';
import { until } from '../support/until.ts';

/**
 * What the image does, done here without a container engine: the Dockerfile's dependency install on its
 * package files alone, the files its COPY lines take (as .dockerignore leaves them), then compose.yaml's
 * processes with the image's entrypoint — migrate, serve --no-worker ×2, worker ×2 — as separate processes
 * against one Postgres (DATABASE_URL) and one S3 (STORAGE_URL). The commands are read from the Dockerfile and
 * compose.yaml (scripts/deploy-files.ts), and each process gets its compose service's environment, so the
 * test runs what ships. A runtime import of a dev dependency,
 * a file the image does not copy, or a need for the embedded Postgres or S3 fails it.
 */
const REPO = path.resolve(import.meta.dirname, '..', '..');
const BUCKET = 'intake-production';
const image = readImage();
const processes = intakeProcesses();
const postgres = await startPrivatePostgres();
const s3 = await startPrivateS3(BUCKET);
const receiver = await startHttpsReceiver();
afterAll(() => receiver.close());
const smtp = await startSmtpTestServer();
afterAll(() => smtp.close());
/** What the operator's .env holds (deploy/.env.example names each). */
const DOT_ENV = {
  INTAKE_DOMAIN: 'forms.example.test',
  INTAKE_SECRET_KEY: 'production-install-test-secret-0123456789',
  POSTGRES_PASSWORD: 'unused-here',
  GARAGE_RPC_SECRET: 'unused-here',
  STORAGE_ACCESS_KEY: 'unused-here',
  STORAGE_SECRET_KEY: 'unused-here',
  STORAGE_PUBLIC_HOST: 'files.example.test',
  SMTP_URL: smtp.url,
};

const installDir = fs.mkdtempSync(path.join(os.tmpdir(), 'intake-production-'));
const appDir = path.join(installDir, 'app');
const dataDir = path.join(installDir, 'data');
afterAll(() => fs.rmSync(installDir, { recursive: true, force: true }));

/** What .dockerignore keeps out of the directories the image copies. */
const IGNORED = new Set(['node_modules', '.env']);
const ignored = (rel: string) =>
  rel.split(path.sep).some((part) => IGNORED.has(part)) || rel.startsWith(`sdk${path.sep}dist`);

const running = new Set<ChildProcess>();
afterAll(async () => {
  for (const child of running) {
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }
});

/**
 * The environment a compose.yaml service runs with: the image's ENV, then the service's own environment
 * interpolated from DOT_ENV, with this machine's Postgres and S3 in place of compose's hosts.
 */
function productionEnv(service: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    // Only the pinned Node is on PATH: nothing of the development machine's tools is there to lean on.
    PATH: path.dirname(process.execPath),
    ...image.env,
    ...serviceEnvironment(service, DOT_ENV),
    INTAKE_DATA_DIR: dataDir,
    DATABASE_URL: postgres.url,
    STORAGE_URL: s3.url,
    STORAGE_BUCKET: BUCKET,
    HOST: '127.0.0.1',
    // The receiver is on 127.0.0.1 with a test certificate: the allowances production does not make.
    INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true',
    ...serverProcessEnv(),
    ...extra,
  };
}

/** The image's ENTRYPOINT with `args`, run in the installed copy by the Node running this test. */
function intake(
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; output: () => string; exited: Promise<[number | null, NodeJS.Signals | null]> } {
  const [command, ...flags] = image.entrypoint;
  const child = spawn(command === 'node' ? process.execPath : command!, [...flags, ...args], {
    cwd: appDir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  captureLogs(child, args[0]!, { env, output: ['stdout'] });
  running.add(child);
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  void exited.then(() => running.delete(child));
  return { child, output: () => output, exited };
}

/** A one-off command in the `migrate` service's environment (as `docker compose run migrate …` would). */
async function run(args: string[]): Promise<string> {
  const p = intake(args, productionEnv('migrate'));
  const [code] = await p.exited;
  if (code !== 0) throw new Error(`intake ${args.join(' ')} exited ${code}:\n${p.output()}`);
  return p.output();
}

describe('the production install', { timeout: 240_000 }, () => {
  it('runs on Node 22, the major version of the image', () => {
    expect(process.versions.node.split('.')[0]).toBe('22');
    expect(image.bases.every((b) => b.startsWith(`node:${process.versions.node.split('.')[0]}.`))).toBe(true);
  });

  it("installs with the image's command alone and serves a post end to end through migrate, 2 × serve --no-worker and 2 × worker", async () => {
    // Stage one of the image: the install, on nothing but the package files.
    fs.mkdirSync(appDir);
    for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(REPO, f), path.join(appDir, f));
    const [npm, ...installArgs] = image.install;
    const started = Date.now();
    // --prefer-offline: the machine's npm cache stands in for the registry where it can (same packages, same integrity).
    // Run beside the test's event loop, not blocking it: the private S3 and the receivers live in this process.
    const npmChild = spawn(npm!, [...installArgs, '--prefer-offline'], {
      cwd: appDir,
      env: {
        ...process.env,
        PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`,
        NODE_ENV: 'production',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 180_000,
    });
    let npmOutput = '';
    npmChild.stdout.on('data', (c: Buffer) => (npmOutput += c.toString()));
    npmChild.stderr.on('data', (c: Buffer) => (npmOutput += c.toString()));
    const [npmCode] = (await once(npmChild, 'exit')) as [number | null];
    const installMs = Date.now() - started;
    expect(npmCode, npmOutput).toBe(0);
    // Nothing only development needs was installed (the lock marks those packages `dev`): a runtime import of one fails below.
    const lock = JSON.parse(fs.readFileSync(path.join(REPO, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const devOnly = Object.entries(lock.packages)
      .filter(([p, meta]) => p && meta.dev)
      .map(([p]) => p);
    expect(devOnly.length).toBeGreaterThan(100);
    expect(devOnly.filter((p) => fs.existsSync(path.join(appDir, p)))).toEqual([]);

    // Stage two: what COPY takes.
    for (const p of image.copied.filter((c) => !['package.json', 'package-lock.json'].includes(c))) {
      fs.cpSync(path.join(REPO, p), path.join(appDir, p), {
        recursive: true,
        filter: (src) => !ignored(path.relative(REPO, src)),
      });
    }

    // compose.yaml's processes: the one-shot migrate first, as its depends_on says, then the rest together.
    const oneShots = processes.filter((p) => p.command[0] === 'migrate');
    expect(oneShots.map((p) => p.command)).toEqual([['migrate']]);
    expect(await run(oneShots[0]!.command)).toContain('migrations are up to date');

    // A team, its owner and a token, by the installed admin commands.
    const team = JSON.parse(
      await run(['admin', 'team', 'create', '--name', 'Production', '--plan', 'pro', '--json']),
    ) as { id: string };
    const userId = (
      await run([
        'admin',
        'user',
        'create',
        '--email',
        'ops@example.test',
        '--name',
        'Ops',
        '--team',
        team.id,
        '--role',
        'owner',
      ])
    )
      .split('\t')[0]!
      .trim();
    const { token } = JSON.parse(
      await run(['admin', 'token', 'create', '--team', team.id, '--user', userId, '--name', 'ops', '--json']),
    ) as { token: string };

    const servers: string[] = [];
    const longRunning = processes.filter((p) => p.command[0] !== 'migrate');
    const children: Array<ReturnType<typeof intake> & { command: string[] }> = [];
    for (const { service, command } of longRunning) {
      const port = command[0] === 'serve' ? await freePort() : 0;
      const p = intake(command, productionEnv(service, { PORT: String(port) }));
      children.push({ command, ...p });
      if (command[0] === 'serve') servers.push(`http://127.0.0.1:${port}`);
    }
    expect(children.map((c) => c.command.join(' ')).sort()).toEqual([
      'serve --no-worker',
      'serve --no-worker',
      'worker',
      'worker',
    ]);
    for (const base of servers) {
      await until(
        `${base}/readyz`,
        async () => {
          const dead = children.find((c) => c.child.exitCode !== null);
          if (dead)
            throw new Error(`intake ${dead.command.join(' ')} exited ${dead.child.exitCode}:\n${dead.output()}`);
          return fetch(`${base}/readyz`).then(
            (r) => r.ok,
            () => false,
          );
        },
        60_000,
      );
    }

    const [api, publicApi] = servers as [string, string];
    const call = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${api}${url}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, never> };
    };
    const form = await call('POST', '/v1/forms', { name: 'Contact' });
    expect(form.status).toBe(201);
    const formId = (form.body.data as { id: string }).id;
    expect((await call('POST', `/v1/forms/${formId}/publish`)).status).toBe(200);
    const webhook = await call('POST', `/v1/forms/${formId}/webhooks`, {
      label: 'receiver',
      url: `${receiver.url}/hooks/intake`,
    });
    expect(webhook.status).toBe(201);

    // The post goes to the other API process; a worker processes it and delivers it.
    const posted = await fetch(`${publicApi}/f/${formId}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams({
        name: 'Ada',
        email: 'ada@example.com',
        message: 'Shipped by the production install',
      }).toString(),
    });
    expect(posted.status).toBe(201);
    const submissionId = ((await posted.json()) as { id: string }).id;
    const [delivered] = await receiver.waitFor(1, 60_000);
    expect(delivered!.path).toBe('/hooks/intake');
    expect(delivered!.headers['webhook-signature']).toMatch(/^v1,/);
    expect(JSON.parse(delivered!.body)).toMatchObject({
      type: 'submission.created',
      submission_id: submissionId,
      payload: { message: 'Shipped by the production install' },
    });
    const stored = await call('GET', `/v1/forms/${formId}/submissions/${submissionId}`);
    expect(stored.status).toBe(200);

    // Postgres and S3 were the ones given: nothing embedded was started in the data directory.
    expect(fs.existsSync(path.join(dataDir, 'postgres')) || fs.existsSync(clusterDir(dataDir))).toBe(false);
    expect(fs.existsSync(path.join(dataDir, 's3'))).toBe(false);

    for (const c of children) c.child.kill('SIGTERM');
    const exits = await Promise.all(children.map((c) => c.exited));
    expect(exits).toEqual(children.map(() => [0, null]));
    console.log(
      `production-install.test.ts: npm ci --omit=dev in ${(installMs / 1000).toFixed(1)} s; ${children.length + 1} processes on Node ${process.version}`,
    );
  });
});
