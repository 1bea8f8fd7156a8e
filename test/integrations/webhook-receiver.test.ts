import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { freePort } from '../../server/infra/db/embedded-postgres.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam } from '../support/harness.ts';
import { postForm, startProcessingApp } from '../support/processing.ts';
import { generateOpenApiTypes, recipe, recipeFolder, typecheck } from '../support/recipes.ts';
import { testCertificate } from '../support/tls.ts';
import { eventually, workerProcesses } from '../support/worker-process.ts';

/**
 * The webhook receiver of docs/integrations.md, as an integrator runs it: event types generated from the
 * committed openapi.json by openapi-typescript, the recipe compiled strict, then run by Node behind a
 * TLS-terminating proxy (Intake delivers to https:// only) and sent a real delivery by a real `intake worker`.
 */

// The API and ingest run here; deliveries go out from a real `intake worker`, which alone trusts the proxy's
// self-signed certificate (NODE_EXTRA_CA_CERTS).
const t = await startProcessingApp({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' }, { worker: false });
const workers = workerProcesses({
  databaseUrl: t.databaseUrl,
  dataDir: t.dataDir,
  env: { INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' },
});

const dir = recipeFolder('webhook-receiver');

type Forwarded = { headers: http.IncomingHttpHeaders; body: Buffer; status: number };

/** An HTTPS server passing each request, byte for byte, to `port` on 127.0.0.1 over plain HTTP: a TLS terminator. */
async function tlsProxy(port: number) {
  const forwarded: Forwarded[] = [];
  const server = https.createServer(testCertificate(), (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const upstream = http.request(
        { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          forwarded.push({ headers: req.headers, body, status: answer.statusCode ?? 0 });
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.writeHead(502).end());
      upstream.end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTestFinished(async () => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `https://localhost:${(server.address() as AddressInfo).port}`, forwarded };
}

/** The recipe running as `node receiver.ts`, with what it has printed so far. */
async function startReceiver(env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, ['receiver.ts'], {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await once(child, 'exit');
  });
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk: Buffer) => (out.stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out.stderr += chunk.toString()));
  await eventually(
    async () => out.stdout,
    (s) => s.includes(`listening on ${env.PORT}`) || child.exitCode !== null,
    30_000,
    () => out.stderr,
  );
  expect(child.exitCode, out.stderr).toBeNull();
  return out;
}

/** The JSON lines the receiver printed for the events it handled. */
const handled = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('a webhook receiver verified with standardwebhooks (docs/integrations.md)', () => {
  beforeAll(async () => {
    await generateOpenApiTypes(dir);
    writeFileSync(path.join(dir, 'receiver.ts'), `${recipe('webhook-receiver')}\n`);
  }, 60_000);

  it(
    'compiles strict (exactOptionalPropertyTypes) against the generated event types',
    { timeout: 120_000 },
    async () => {
      expect(await typecheck(dir, ['receiver.ts'], ['--exactOptionalPropertyTypes'])).toBe('');
    },
  );

  it(
    "verifies a real delivery with the webhook's secret and answers 2xx; refuses a tampered body or a forged signature",
    { timeout: 90_000 },
    async () => {
      workers.start();
      const port = await freePort();
      const proxy = await tlsProxy(port);
      const owner = await makeTeam(t, { plan: 'scale' });
      const form = await makePublishedForm(t, owner);
      const created = await t.http
        .post(`/v1/forms/${form.id}/webhooks`)
        .set(bearer(owner.token))
        .send({ label: 'Receiver', url: `${proxy.url}/hooks/intake` });
      expect(created.status, created.text).toBe(201);
      const webhookId = created.body.data.id as string;
      const secret = created.body.secret as string;
      const receiver = await startReceiver({ PORT: String(port), INTAKE_WEBHOOK_SECRET: secret });

      const submissionId = await postForm(t, form.endpoint, { name: 'Ada', email: 'ada@example.com' });
      const events = await eventually(
        async () => handled(receiver.stdout),
        (lines) => lines.length > 0,
        30_000,
        () => receiver.stderr,
      );
      expect(events).toEqual([{ event: 'submission.created', submission: submissionId, test: false }]);
      const deliveries = await eventually(
        async () =>
          (
            await t.ctx.db.query<{ status: string; http_status: number | null }>(
              'select status, http_status from deliveries where webhook_id = $1',
              [webhookId],
            )
          ).rows,
        (rows) => rows.length === 1 && rows[0]!.status !== 'pending',
      );
      expect(deliveries).toEqual([{ status: 'succeeded', http_status: 204 }]);

      // What Intake sent, byte for byte, sent again straight to the receiver.
      const [genuine] = proxy.forwarded;
      expect(genuine!.status).toBe(204);
      const signed = {
        'content-type': 'application/json',
        'webhook-id': String(genuine!.headers['webhook-id']),
        'webhook-timestamp': String(genuine!.headers['webhook-timestamp']),
        'webhook-signature': String(genuine!.headers['webhook-signature']),
      };
      const send = (body: string | Buffer, headers: Record<string, string>) =>
        fetch(`http://127.0.0.1:${port}/hooks/intake`, { method: 'POST', headers, body });

      // The same delivery again (at least once): verified, answered 2xx, not handled twice.
      expect((await send(genuine!.body, signed)).status).toBe(204);
      // The body changed after signing: refused.
      const tampered = genuine!.body.toString('utf8').replace('ada@example.com', 'eve@example.com');
      expect(tampered).not.toBe(genuine!.body.toString('utf8'));
      expect((await send(tampered, signed)).status).toBe(401);
      // Signed, but with a secret that is not the webhook's: refused.
      const other = new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`);
      const forged = other.sign(signed['webhook-id'], new Date(), genuine!.body);
      expect((await send(genuine!.body, { ...signed, 'webhook-signature': forged })).status).toBe(401);
      // No signature at all: refused.
      expect((await send(genuine!.body, { 'content-type': 'application/json' })).status).toBe(401);

      expect(handled(receiver.stdout)).toHaveLength(1);
      expect(receiver.stderr.match(/^refused: /gm)).toHaveLength(3);
    },
  );
});
