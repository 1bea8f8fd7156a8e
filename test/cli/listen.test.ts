import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { describe, expect, it, onTestFinished } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../sdk/index.ts';
import { cliHome, cliProcesses, runCli, userEnv, type CliProcess } from '../support/cli.ts';
import { makePublishedForm } from '../support/forms.ts';
import { makeTeam, type TestMember } from '../support/harness.ts';
import { listenLocally } from '../support/live-server.ts';
import { startProcessingApp, waitForProcessing } from '../support/processing.ts';
import { until } from '../support/until.ts';

/**
 * `intake listen` end to end (docs/listen.md): the real CLI as a child process, against the real app with a
 * worker on 127.0.0.1, forwarding to a local HTTP receiver; submissions come in through the public
 * endpoint as a website posts them.
 */
const t = await startProcessingApp();
const { baseUrl, server } = await listenLocally(t.app);
const home = cliHome('intake-listen-home-');
const processes = cliProcesses('each');

/** Each once, in any order: the worker settles up to four posts at once, and events come in processing order. */
const exactlyOnce = (got: string[], posted: string[]) => expect([...got].sort()).toEqual([...posted].sort());

const CLEAN = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  message: 'Hello, could you send me a quote for the analytical engine?',
};

/** A post as a website's form makes it, over real HTTP; its id. */
async function post(formId: string, fields: Record<string, string> = CLEAN): Promise<string> {
  const res = await fetch(`${baseUrl}/f/${formId}`, {
    method: 'POST',
    headers: { accept: 'application/json' },
    body: new URLSearchParams(fields),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

type Received = { at: number; headers: http.IncomingHttpHeaders; body: string };

/** A local webhook receiver: records every request (raw body) and answers `status`. */
async function receiver(status = 204) {
  const requests: Received[] = [];
  const srv = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ at: performance.now(), headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = status;
      res.end();
    });
  });
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  onTestFinished(() => new Promise<void>((r) => srv.close(() => r())));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/hook`, requests };
}

type Listening = {
  child: CliProcess['child'];
  out: () => string;
  err: () => string;
  lines: () => string[];
  exited: Promise<number | null>;
};

/** `intake listen …` as a child process for the member (INTAKE_URL + INTAKE_TOKEN), killed after the test. */
function listen(member: TestMember, ...args: string[]): Listening {
  // Its stderr shows the forwarding secret on purpose.
  const p = processes.start(['listen', ...args], userEnv(home, { url: baseUrl, token: member.token }), {
    output: ['stdout', 'stderr'],
  });
  return {
    child: p.child,
    out: p.stdout,
    err: p.stderr,
    lines: () => p.stdout().split('\n').filter(Boolean),
    exited: p.exited.then(([code]) => code),
  };
}

const SECRET = /Forwarding to \S+, signed with (whsec_[A-Za-z0-9+/]+={0,2})/;
const ready = (l: Listening) => until('intake listen to be ready', () => /Ready!/.test(l.err()) && l.err());

describe('intake listen', () => {
  it('forwards a post to a local receiver within a second, signed as a webhook delivery: verifyWebhook accepts it with the printed secret', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const hook = await receiver();
    const l = listen(owner, '--form', form.id, '--forward-to', hook.url);
    const secret = SECRET.exec(await ready(l))![1]!;

    const latencies: number[] = [];
    const posted: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const started = performance.now();
      posted.push(await post(form.id, { ...CLEAN, message: `${CLEAN.message} (${i})` }));
      const got = await until('the forwarded request', () => hook.requests[i]);
      latencies.push(Math.round(got.at - started));
    }
    for (const ms of latencies) expect(ms, `post → receiver: ${latencies.join(', ')} ms`).toBeLessThan(1000);

    for (const [i, req] of hook.requests.entries()) {
      const event = verifyWebhook(secret, req.headers, req.body) as Record<string, unknown>;
      expect(event).toMatchObject({
        type: 'submission.created',
        submission_id: posted[i],
        form_id: form.id,
        payload: { ...CLEAN, message: `${CLEAN.message} (${i})` },
      });
      // The Standard Webhooks library accepts it too, and its headers are a delivery's.
      expect(new StandardWebhook(secret).verify(req.body, req.headers as Record<string, string>)).toEqual(event);
      expect(req.headers).toMatchObject({
        'content-type': 'application/json',
        'user-agent': expect.stringMatching(/^Intake-Webhooks\//),
        'webhook-id': expect.stringMatching(/^whd_[0-9a-z]{26}$/),
        'x-service-signature': expect.stringMatching(/^v1=[0-9a-f]{64}$/),
        'x-service-timestamp': req.headers['webhook-timestamp'],
      });
      expect(() => verifyWebhook('whsec_' + Buffer.alloc(32, 1).toString('base64'), req.headers, req.body)).toThrow(
        WebhookVerificationError,
      );
    }
    // One line per event: time, id, the first fields, the receiver's status.
    await until('three lines', () => l.lines().length === 3);
    for (const [i, line] of l.lines().entries()) {
      expect(line).toMatch(
        new RegExp(
          `^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  ${posted[i]}  name=Ada Lovelace  email=ada@example.com  message=Hello, could.*  → 204$`,
        ),
      );
    }
  });

  it('killed and started again with --last-event-id: what was posted meanwhile arrives once, then live posts', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const hook = await receiver();
    const first = listen(owner, '--form', form.id, '--forward-to', hook.url, '--json');
    const secret = SECRET.exec(await ready(first))![1]!;
    const posted = [await post(form.id)];
    await until('the first event', () => first.lines().length === 1);
    const lastId = JSON.parse(first.lines()[0]!).id as string;
    first.child.kill('SIGKILL');
    await first.exited;

    posted.push(await post(form.id), await post(form.id));
    for (const id of posted.slice(1)) await waitForProcessing(t, id);
    const second = listen(
      owner,
      '--form',
      form.id,
      '--forward-to',
      hook.url,
      '--json',
      '--secret',
      secret,
      '--last-event-id',
      lastId,
    );
    await ready(second);
    await until('the missed events', () => second.lines().length === 2);
    posted.push(await post(form.id));
    await until('the live event', () => second.lines().length === 3);
    await new Promise((r) => setTimeout(r, 300));

    const lines = second
      .lines()
      .map((l) => JSON.parse(l) as { id: string; event: string; submission: { submission_id: string } });
    exactlyOnce(
      lines.map((e) => e.submission.submission_id),
      posted.slice(1),
    );
    expect(lines.every((e) => e.event === 'submission' && e.id.length > 0)).toBe(true);
    exactlyOnce(
      hook.requests.map((r) => (verifyWebhook(secret, r.headers, r.body) as { submission_id: string }).submission_id),
      posted,
    );
    expect(second.err()).toMatch(/→ 204/);

    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
    expect(second.err()).toContain(`resume with --last-event-id ${lines.at(-1)!.id}`);
  });

  it('reconnects by itself after the connection drops, losing nothing and repeating nothing', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const hook = await receiver();
    const l = listen(owner, '--form', form.id, '--forward-to', hook.url);
    await ready(l);
    const posted = [await post(form.id)];
    await until('the first request', () => hook.requests.length === 1);
    server.closeAllConnections(); // drops the CLI's stream
    posted.push(await post(form.id), await post(form.id));
    await until('the reconnection', () => /connection lost .*\n.*reconnected/s.test(l.err()) && l.err());
    await until('the events posted around the drop', () => hook.requests.length === 3);
    posted.push(await post(form.id));
    await until('a live event after it', () => hook.requests.length === 4);
    await new Promise((r) => setTimeout(r, 300));
    exactlyOnce(
      hook.requests.map((r) => (JSON.parse(r.body) as { submission_id: string }).submission_id),
      posted,
    );
    expect(l.lines()).toHaveLength(4);
  });

  it('leaves spam out unless --include-spam, which marks it', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const clean = listen(owner, '--form', form.id);
    const all = listen(owner, '--form', form.id, '--include-spam');
    await Promise.all([ready(clean), ready(all)]);
    const spam = await post(form.id, { ...CLEAN, _gotcha: 'bot' });
    const good = await post(form.id);
    await until('both lines with spam', () => all.lines().length === 2);
    await until('the clean line', () => clean.lines().length === 1);
    await new Promise((r) => setTimeout(r, 1200));
    expect(clean.lines()).toHaveLength(1);
    expect(clean.lines()[0]).toContain(good);
    expect(all.lines()[0]).toMatch(new RegExp(`  ${spam}  spam  name=`));
    expect(all.lines()[1]).toMatch(new RegExp(`  ${good}  name=`));
  });

  it('exits like the other API commands: 3 for a bad token, 4 for an unknown form, 2 for bad options', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const env = (token: string) => userEnv(home, { url: baseUrl, token });
    const badToken = await runCli(['listen', '--form', form.id], env(`intk_${'A'.repeat(40)}`));
    expect(badToken.code).toBe(3);
    expect(badToken.stderr).toContain('unauthenticated');
    const unknown = await runCli(['listen', '--form', 'frm_00000000000000000000000000'], env(owner.token));
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain('not_found');
    const badUrl = await runCli(['listen', '--form', form.id, '--forward-to', 'ftp://x'], env(owner.token));
    expect(badUrl.code).toBe(2);
    const badSecret = await runCli(
      ['listen', '--form', form.id, '--forward-to', 'http://127.0.0.1:9/', '--secret', 'nope'],
      env(owner.token),
    );
    expect(badSecret.code).toBe(2);
    const noForm = await runCli(['listen'], env(owner.token));
    expect(noForm.code).toBe(2);
  });
});
