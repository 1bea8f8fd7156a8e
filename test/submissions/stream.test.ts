import fs from 'node:fs';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { STREAM_BATCH, STREAM_LIMITS, SubmissionCreatedEvent } from '../../contract/events.ts';
import { createClient, IntakeError, parseEventStream, type ListenEvent, type ListenOptions } from '../../sdk/index.ts';
import { newId } from '../../server/domain/shared/ids.ts';
import { processSubmission } from '../../server/domain/submissions/processing.ts';
import { nextStreamSeq, numberStreamEvents, numbering } from '../../server/infra/db/queries/stream-heads.ts';
import { announceSubmissionEvent } from '../../server/domain/submissions/stream.ts';
import { toolSpecs } from '../../server/transports/mcp/tools.ts';
import { cliProcesses, installationEnv } from '../support/cli.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, makeToken } from '../support/harness.ts';
import { listenLocally } from '../support/live-server.ts';
import { postForm, startProcessingApp } from '../support/processing.ts';
import { until } from '../support/until.ts';

/**
 * GET /v1/forms/{form}/submissions/stream (docs/listen.md) against the real app on 127.0.0.1, with the SDK's
 * `listen()` as the client. No worker: each test settles its submissions itself (processSubmission), in the
 * order it needs — including out of arrival order, and with a settling transaction held open.
 */
const t = await startProcessingApp({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' }, { worker: false });
const { server, baseUrl } = await listenLocally(t.app);

const CLEAN = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  message: 'Hello, could you send me a quote for the analytical engine?',
};

/** A clean post to the form, settled by processing as the worker would; its id. */
async function processed(form: { endpoint: string }, fields: Record<string, string> = CLEAN): Promise<string> {
  const id = await postForm(t, form.endpoint, fields);
  expect(await processSubmission(t.ctx, id)).toBe('processed');
  return id;
}

type Listening = {
  received: ListenEvent[];
  connects: number;
  connected: Promise<void>;
  reconnects: Array<{ delayMs: number; error: unknown }>;
  /** Resolves when the iteration ends: undefined, or the error it threw. */
  done: Promise<unknown>;
  stop(): void;
};

/** `client.listen()` consumed in the background into `received`. */
function listen(
  member: { token: string },
  formId: string,
  opts: ListenOptions & { fetch?: typeof fetch } = {},
): Listening {
  const { fetch: fetchImpl, ...listenOpts } = opts;
  const client = createClient({ baseUrl, token: member.token, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  const controller = new AbortController();
  let connected!: () => void;
  const state: Listening = {
    received: [],
    connects: 0,
    connected: new Promise<void>((r) => (connected = r)),
    reconnects: [],
    done: Promise.resolve(),
    stop: () => controller.abort(),
  };
  const events = client.listen(formId, {
    ...listenOpts,
    backoff: { baseDelayMs: 50, maxDelayMs: 200 },
    signal: controller.signal,
    onConnect: () => {
      state.connects += 1;
      connected();
    },
    onReconnect: (info) => state.reconnects.push(info),
  });
  state.done = (async () => {
    try {
      for await (const e of events) state.received.push(e);
      return undefined;
    } catch (err) {
      return err;
    }
  })();
  onTestFinished(() => controller.abort());
  return state;
}

const ids = (events: ListenEvent[]) => events.map((e) => e.submission.submission_id);

/** The raw stream, for what the SDK hides: headers, the first `id:` line, comments. */
async function rawStream(token: string, path: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  onTestFinished(() => controller.abort());
  const res = await fetch(`${baseUrl}${path}`, {
    headers: { ...bearer(token), accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  return { res, abort: () => controller.abort() };
}

describe('the stream', () => {
  it('sends each processed submission once, in processing order, with the webhook body as data', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    // A webhook on the form: the stream's data must be byte for byte its delivery's body.
    const hook = await t.http
      .post(`/v1/forms/${form.id}/webhooks`)
      .set(bearer(owner.token))
      .send({ label: 'crm', url: 'https://127.0.0.1:9/hook' });
    expect(hook.status).toBe(201);
    const { res } = await rawStream(owner.token, `/v1/forms/${form.id}/submissions/stream`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const messages = parseEventStream(res.body!);
    // First the position "now", as an id with no data: a client that reconnects before any event loses nothing.
    const start = (await messages.next()).value!;
    expect(start).toMatchObject({ hasData: false, retry: 1000 });
    expect(start.id).toMatch(/^[\w-]+$/);

    const first = await processed(form);
    const second = await processed(form, { ...CLEAN, name: 'Grace Hopper', email: 'grace@example.com' });
    const a = (await messages.next()).value!;
    const b = (await messages.next()).value!;
    expect([a.event, b.event]).toEqual(['submission', 'submission']);
    expect(a.id).not.toBe(b.id);
    const bodies = [JSON.parse(a.data), JSON.parse(b.data)];
    expect(bodies.map((d) => d.submission_id)).toEqual([first, second]);
    for (const body of bodies) expect(SubmissionCreatedEvent.strict().safeParse(body).success).toBe(true);
    const { rows } = await t.ctx.db.query<{ submission_id: string; request_body: string }>(
      'select submission_id, request_body from deliveries where submission_id = any($1) order by created_at',
      [[first, second]],
    );
    expect(rows.map((r) => r.request_body)).toEqual([a.data, b.data]);
    expect(bodies[0]).toMatchObject({
      type: 'submission.created',
      form_id: form.id,
      form_name: 'Contact',
      payload: CLEAN,
    });
  });

  it('answers JSON without Accept: text/event-stream: a poll that starts now and resumes after last_event_id', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const path = `/v1/forms/${form.id}/submissions/stream`;
    await processed(form); // before the first poll: not an event of it
    const start = await t.http.get(path).set(bearer(owner.token));
    expect(start.status).toBe(200);
    expect(start.headers['content-type']).toMatch(/^application\/json/);
    expect(start.body).toEqual({ data: [], meta: { last_event_id: expect.any(String), has_more: false } });
    const one = await processed(form);
    const two = await processed(form);
    const next = await t.http
      .get(path)
      .query({ last_event_id: start.body.meta.last_event_id })
      .set(bearer(owner.token));
    expect(next.body.data.map((e: { submission: { submission_id: string } }) => e.submission.submission_id)).toEqual([
      one,
      two,
    ]);
    expect(next.body.data[1].id).toBe(next.body.meta.last_event_id);
    const again = await t.http
      .get(path)
      .query({ last_event_id: next.body.meta.last_event_id })
      .set(bearer(owner.token));
    expect(again.body.data).toEqual([]);
    // The generated SDK method is this poll.
    const polled = await createClient({ baseUrl, token: owner.token }).ok.streamSubmissions({
      params: { form: form.id },
      query: { last_event_id: start.body.meta.last_event_id },
    });
    // Event ids are positions (the same event read later may carry another id): the events are the same.
    expect(polled.data.map((e) => e.submission.submission_id)).toEqual([one, two]);
  });

  it('sends a submission settled late before the ones settled after it: a later number waits for its commit', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const l = listen(owner, form.id);
    await l.connected;
    const early = await postForm(t, form.endpoint, CLEAN);
    const late = await postForm(t, form.endpoint, { ...CLEAN, email: 'late@example.com' });
    // `early`'s settling transaction has taken its stream number and is still open while `late` is processed.
    const held = new pg.Client({ connectionString: t.databaseUrl });
    await held.connect();
    onTestFinished(() => held.end().catch(() => {}));
    await held.query('begin');
    await held.query(`update submissions set status = 'processed', updated_at = now() where id = $1`, [early]);
    await held.query(`with head as (${nextStreamSeq('$2', '$3')}) ${numbering('$2', '$3', 'array[$1]')}`, [
      early,
      form.id,
      owner.teamId,
    ]);
    let settled = false;
    const processing = processSubmission(t.ctx, late).then((r) => ((settled = true), r));
    await new Promise((r) => setTimeout(r, 400));
    // Neither is sent, and `late` cannot commit a number above `early`'s before it.
    expect(settled).toBe(false);
    expect(l.received).toEqual([]);
    await held.query('commit');
    expect(await processing).toBe('processed');
    announceSubmissionEvent(t.ctx, form.id);
    await until('both submissions', () => l.received.length === 2);
    expect(ids(l.received)).toEqual([early, late]);
    // Resuming from the earlier one's id sends the later one.
    const resumed = await t.http
      .get(`/v1/forms/${form.id}/submissions/stream`)
      .query({ last_event_id: l.received[0]!.id })
      .set(bearer(owner.token));
    expect(resumed.body.data.map((e: { submission: { submission_id: string } }) => e.submission.submission_id)).toEqual(
      [late],
    );
    l.stop();
  });

  it('pages a backlog by event id: every event once, in order, from any event of it', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const path = `/v1/forms/${form.id}/submissions/stream`;
    const start = (await t.http.get(path).set(bearer(owner.token))).body.meta.last_event_id as string;
    // 250 events with one stream number (as a batched insert of door spam makes): ordered by id within it.
    const made = Array.from({ length: 250 }, () => newId('subm')).sort();
    await t.ctx.db.query(
      `insert into submissions (id, team_id, form_id, status, payload)
       select id, $2, $3, 'processed', '{"n":1}'::jsonb from unnest($1::text[]) id`,
      [made, owner.teamId, form.id],
    );
    await numberStreamEvents(t.ctx.db, owner.teamId, form.id, made);
    const seen: Array<{ id: string; submission: { submission_id: string } }> = [];
    let cursor = start;
    const pages: number[] = [];
    for (;;) {
      const res = await t.http.get(path).query({ last_event_id: cursor }).set(bearer(owner.token));
      expect(res.status).toBe(200);
      pages.push(res.body.data.length);
      seen.push(...res.body.data);
      cursor = res.body.meta.last_event_id;
      if (!res.body.meta.has_more) break;
    }
    expect(pages).toEqual([STREAM_BATCH, STREAM_BATCH, 50]);
    expect(seen.map((e) => e.submission.submission_id)).toEqual(made);
    // The SDK's stream resumed from the 150th event sends exactly the 100 after it.
    const l = listen(owner, form.id, { lastEventId: seen[149]!.id });
    await until('the rest of the backlog', () => l.received.length >= 100);
    await new Promise((r) => setTimeout(r, 200));
    expect(ids(l.received)).toEqual(made.slice(150));
    l.stop();
  });

  it('resumes after a dropped connection with Last-Event-ID: nothing posted meanwhile is lost or sent twice', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    // A fetch that records each connection's Last-Event-ID and can hold reconnections back.
    const sent: Array<string | null> = [];
    let gate: Promise<void> | null = null;
    let open = () => {};
    const gated: typeof fetch = async (input, init) => {
      sent.push(new Headers(init?.headers).get('last-event-id'));
      if (sent.length > 1 && gate) await gate;
      return fetch(input, init);
    };
    const l = listen(owner, form.id, { fetch: gated });
    await l.connected;
    const posted = [await processed(form), await processed(form)];
    await until('two events', () => l.received.length === 2);

    gate = new Promise((r) => (open = r));
    server.closeAllConnections(); // the stream's connection is dropped
    await until('the SDK to notice', () => l.reconnects.length === 1 && sent.length === 2);
    posted.push(await processed(form), await processed(form)); // while no stream is open
    open();
    await until('the two missed events', () => l.received.length === 4);
    expect(sent[1]).toBe(l.received[1]!.id);
    posted.push(await processed(form));
    await until('a live event after the resume', () => l.received.length === 5);
    await new Promise((r) => setTimeout(r, 300));
    expect(ids(l.received)).toEqual(posted);
    expect(new Set(l.received.map((e) => e.id)).size).toBe(5);
    expect(l.connects).toBe(2);
    l.stop();
  });

  it('sends nothing for spam unless include=spam, then a `spam` event for spam caught at the door', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const clean = listen(owner, form.id);
    const all = listen(owner, form.id, { include: 'spam' });
    await Promise.all([clean.connected, all.connected]);
    const spam = await postForm(t, form.endpoint, { ...CLEAN, _gotcha: 'i am a bot' });
    expect(
      (await t.ctx.db.query<{ status: string }>('select status from submissions where id = $1', [spam])).rows[0]!
        .status,
    ).toBe('spam');
    const good = await processed(form);
    await until('both events with spam included', () => all.received.length === 2);
    await until('the clean event', () => clean.received.length === 1);
    await new Promise((r) => setTimeout(r, 1200)); // past the spam poll
    expect(ids(clean.received)).toEqual([good]);
    expect(all.received.map((e) => [e.event, e.submission.submission_id])).toEqual([
      ['spam', spam],
      ['submission', good],
    ]);
    // An id of one kind of stream does not resume the other.
    const res = await t.http
      .get(`/v1/forms/${form.id}/submissions/stream`)
      .query({ last_event_id: all.received[0]!.id })
      .set(bearer(owner.token));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'validation_failed', details: [{ in: 'query', path: 'last_event_id' }] });
    clean.stop();
    all.stop();
  });
});

describe('access and limits', () => {
  it("401 without a token, 403 without submissions:read, 404 for another team's form, 400 for a foreign event id", async () => {
    const owner = await makeTeam(t);
    const other = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const theirs = await makePublishedForm(t, other);
    const path = `/v1/forms/${form.id}/submissions/stream`;
    const noToken = await fetch(`${baseUrl}${path}`, { headers: { accept: 'text/event-stream' } });
    expect(noToken.status).toBe(401);
    expect(await noToken.json()).toMatchObject({ error: 'unauthenticated' });
    const narrow = await makeToken(t, owner, ['forms:read']);
    const forbidden = await fetch(`${baseUrl}${path}`, {
      headers: { ...bearer(narrow.token), accept: 'text/event-stream' },
    });
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ error: 'forbidden', required: 'submissions:read' });
    const foreign = await fetch(`${baseUrl}/v1/forms/${theirs.id}/submissions/stream`, {
      headers: { ...bearer(owner.token), accept: 'text/event-stream' },
    });
    expect(foreign.status).toBe(404);
    // The SDK throws those at once instead of reconnecting.
    const refused = listen(owner, theirs.id);
    const err = await refused.done;
    expect(err).toBeInstanceOf(IntakeError);
    expect(err).toMatchObject({ status: 404, code: 'not_found' });
    // An event id of another form, or no event id at all, in the header.
    const theirId = (await t.http.get(`/v1/forms/${theirs.id}/submissions/stream`).set(bearer(other.token))).body.meta
      .last_event_id;
    for (const id of [theirId, 'garbage', Buffer.from('[1,"x"]').toString('base64url')]) {
      const bad = await fetch(`${baseUrl}${path}`, {
        headers: { ...bearer(owner.token), accept: 'text/event-stream', 'last-event-id': id },
      });
      expect(bad.status, id).toBe(400);
      expect(await bad.json()).toMatchObject({
        error: 'validation_failed',
        details: [{ in: 'header', path: 'last-event-id' }],
      });
    }
  });

  it(`allows ${STREAM_LIMITS.token} open streams per token and ${STREAM_LIMITS.team} per team (429 beyond); a closed stream frees its place`, async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const path = `/v1/forms/${form.id}/submissions/stream`;
    const open = [];
    for (let i = 0; i < STREAM_LIMITS.token; i += 1) open.push(await rawStream(owner.token, path));
    expect(open.map((s) => s.res.status)).toEqual(Array(STREAM_LIMITS.token).fill(200));
    const refused = await rawStream(owner.token, path);
    expect(refused.res.status).toBe(429);
    expect(refused.res.headers.get('retry-after')).toBe('15');
    expect(await refused.res.json()).toMatchObject({
      error: 'rate_limited',
      retry_after: 15,
      message: expect.stringContaining(`${STREAM_LIMITS.token} per token`),
    });
    open.pop()!.abort();
    await until(
      'the closed stream to free its place',
      async () => (await rawStream(owner.token, path)).res.status === 200,
    );

    // The team: other tokens fill it up to its limit.
    const team = await makeTeam(t);
    const teamForm = await makePublishedForm(t, team);
    const teamPath = `/v1/forms/${teamForm.id}/submissions/stream`;
    const tokens = await Promise.all(
      Array.from({ length: STREAM_LIMITS.team / STREAM_LIMITS.token + 1 }, () => makeToken(t, team)),
    );
    let opened = 0;
    for (const token of tokens.slice(0, -1)) {
      for (let i = 0; i < STREAM_LIMITS.token; i += 1)
        opened += (await rawStream(token.token, teamPath)).res.status === 200 ? 1 : 0;
    }
    expect(opened).toBe(STREAM_LIMITS.team);
    const overTeam = await rawStream(tokens.at(-1)!.token, teamPath);
    expect(overTeam.res.status).toBe(429);
    expect(await overTeam.res.json()).toMatchObject({
      message: expect.stringContaining(`${STREAM_LIMITS.team} per team`),
    });
  });

  it('holds no connection per stream: one pooled LISTEN session while streams are open, none after', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const listening = async () =>
      (
        await t.ctx.db.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and query ilike 'listen %' and state = 'idle'`,
        )
      ).rows[0]!.n;
    const streams = [listen(owner, form.id), listen(owner, form.id), listen(owner, form.id)];
    await Promise.all(streams.map((s) => s.connected));
    await until('the LISTEN session', async () => (await listening()) === 1);
    // Only this query runs: no stream holds a query open while idle.
    const active = async () =>
      (
        await t.ctx.db.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'active'`,
        )
      ).rows[0]!.n;
    await until('no query but this one', async () => (await active()) === 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(await active()).toBe(1);
    for (const s of streams) s.stop();
    await until('the session to be given back', async () => (await listening()) === 0);
  });

  it(
    'ends with an `error` event when the token is revoked while streaming; the SDK throws it',
    { timeout: 45_000 },
    async () => {
      const owner = await makeTeam(t);
      const form = await makePublishedForm(t, owner);
      const token = await makeToken(t, owner);
      const l = listen(token, form.id);
      await l.connected;
      await t.http.delete(`/v1/tokens/${token.tokenId}`).set(bearer(owner.token)).expect(200);
      const err = await Promise.race([l.done, new Promise((r) => setTimeout(() => r('still open'), 40_000))]);
      expect(err).toBeInstanceOf(IntakeError);
      expect(err).toMatchObject({ status: 401, code: 'unauthenticated' });
    },
  );
});

describe('shutdown and the tool list', () => {
  const serves = cliProcesses('each');

  it('`intake serve` ends its streams on SIGTERM and exits; the SDK reconnects', { timeout: 60_000 }, async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const serve = serves.start(
      ['serve', '--no-worker'],
      // No load balancer here to take it out of rotation: a short drain before the streams end.
      installationEnv(t, { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', INTAKE_SHUTDOWN_DRAIN_MS: '500' }),
    );
    const url = await serve.url();
    const client = createClient({ baseUrl: url, token: owner.token });
    const controller = new AbortController();
    let connected = 0;
    const lost: unknown[] = [];
    const events = client.listen(form.id, {
      signal: controller.signal,
      onConnect: () => (connected += 1),
      onReconnect: (i) => lost.push(i),
    });
    const done = (async () => {
      for await (const _ of events) void _;
    })();
    await until('the stream', () => connected === 1, 10_000);
    const started = Date.now();
    serve.child.kill('SIGTERM');
    const [code] = await serve.exited;
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    await until('the SDK to see the end and plan a reconnect', () => lost.length >= 1);
    controller.abort();
    await done;
  });

  it('is documented as text/event-stream (and JSON) in openapi.json, and is no MCP tool', () => {
    const doc = JSON.parse(fs.readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));
    const op = doc.paths['/v1/forms/{form}/submissions/stream'].get;
    expect(op.operationId).toBe('streamSubmissions');
    expect(Object.keys(op.responses['200'].content).sort()).toEqual(['application/json', 'text/event-stream']);
    expect(op.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`)).toEqual(
      expect.arrayContaining(['path:form', 'query:include', 'query:last_event_id', 'header:last-event-id']),
    );
    expect(op['x-ability']).toBe('submissions:read');
    expect(toolSpecs.map((s) => s.routeKey)).not.toContain('streamSubmissions');
  });
});
