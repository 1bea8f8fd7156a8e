import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createClient,
  type Delivery,
  type Form,
  type Insights,
  type Job,
  type Submission,
  type Token,
  type Webhook,
} from '../../sdk/index.ts';
import { freePort } from '../../server/infra/db/embedded-postgres.ts';

/**
 * The tools integrators point at openapi.json, run on the committed file: Prism mock-serves it
 * and the SDK's calls get answers it accepts, typed by the named types; openapi-typescript's output
 * (sdk/openapi-types.ts) and the SDK's named types typecheck on their own.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');

describe('Prism mock-serving openapi.json', () => {
  let prism: ChildProcess | undefined;
  let baseUrl = '';
  let output = '';

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    prism = spawn(
      process.execPath,
      [
        path.join(ROOT, 'node_modules/@stoplight/prism-cli/dist/index.js'),
        'mock',
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        path.join(ROOT, 'openapi.json'),
      ],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const listening = new Promise<void>((resolve, reject) => {
      const seen = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Prism is listening')) resolve();
      };
      prism!.stdout!.on('data', seen);
      prism!.stderr!.on('data', seen);
      prism!.once('exit', (code) => reject(new Error(`prism exited (${code}) before listening:\n${output}`)));
    });
    await listening;
  }, 90_000);

  afterAll(async () => {
    if (prism && prism.exitCode === null) {
      prism.kill('SIGTERM');
      await once(prism, 'exit');
    }
  });

  it("answers the SDK's calls with 2xx bodies of the named types", async () => {
    const client = createClient({ baseUrl, token: `intk_${'a'.repeat(40)}` });
    const me = (await client.ok.getMe()).data;
    expect(typeof me.team.id).toBe('string');

    const forms: Form[] = (await client.ok.listForms({ query: {} })).data;
    const form: Form = (await client.ok.getForm({ params: { form: 'frm_mock' } })).data;
    expect(typeof form.id).toBe('string');
    expect(Array.isArray(forms)).toBe(true);

    const submissions: Submission[] = (await client.ok.listSubmissions({ params: { form: 'frm_mock' }, query: {} }))
      .data;
    expect(Array.isArray(submissions)).toBe(true);
    const webhooks: Webhook[] = (await client.ok.listWebhooks({ params: { form: 'frm_mock' } })).data;
    expect(Array.isArray(webhooks)).toBe(true);
    const deliveries: Delivery[] = (
      await client.ok.listDeliveries({ params: { form: 'frm_mock', webhook: 'wh_mock' }, query: {} })
    ).data;
    expect(Array.isArray(deliveries)).toBe(true);
    const tokens: Token[] = (await client.ok.listTokens()).data;
    expect(Array.isArray(tokens)).toBe(true);
    const job: Job = (await client.ok.getJob({ params: { job_id: 'job_mock' } })).data;
    expect(['queued', 'running', 'succeeded', 'failed']).toContain(job.status);
    const insights: Insights | null = (await client.ok.getAiInsights({ query: {} })).data;
    expect(insights === null || typeof insights.summary_md === 'string').toBe(true);

    const created = await client.createForm({ body: { name: 'Contact' } });
    expect(created.status).toBe(201);
    // Prism checked each request against the document too: none was refused as invalid.
    expect(output).not.toMatch(/Request terminated with error|Violation: request/);
  });

  it('refuses a request the document does not allow (Prism validates, it is not a catch-all)', async () => {
    const res = await fetch(`${baseUrl}/v1/forms`, {
      method: 'POST',
      headers: { authorization: 'Bearer x', 'content-type': 'application/json' },
      body: '{"name": 5}',
    });
    // Prism answers a request that breaks the document with the operation's documented 400.
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBeTruthy();
  });
});

describe('generated types', () => {
  it(
    "openapi-typescript's output and the SDK's named types typecheck on their own (strict, exactOptionalPropertyTypes)",
    { timeout: 120_000 },
    () => {
      const run = spawnSync(
        process.execPath,
        [
          path.join(ROOT, 'node_modules/typescript/bin/tsc'),
          '--noEmit',
          '--strict',
          '--exactOptionalPropertyTypes',
          '--target',
          'ES2023',
          '--lib',
          'ES2024',
          '--module',
          'NodeNext',
          '--moduleResolution',
          'NodeNext',
          '--allowImportingTsExtensions',
          '--verbatimModuleSyntax',
          '--skipLibCheck',
          '--types',
          'node',
          'sdk/openapi-types.ts',
          'test/support/sdk-named-types.ts',
          'test/support/sdk-webhook-types.ts',
        ],
        { cwd: ROOT, encoding: 'utf8' },
      );
      expect(run.stdout + run.stderr).toBe('');
      expect(run.status).toBe(0);
    },
  );
});
