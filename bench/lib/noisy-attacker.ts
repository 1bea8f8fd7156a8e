/**
 * Team A of the noisy-neighbour benchmark (bench/noisy-neighbour.ts): the worst one tenant can do to a shared
 * `intake serve` with the tokens it legitimately holds. It runs as a process of its own so that its sockets,
 * timers and 1 MB bodies never share an event loop with team B's load generator (whose latencies are the
 * measurement).
 *
 * `node bench/lib/noisy-attacker.ts` with its settings as JSON in NOISY_ATTACK. It prints one JSON line
 * `{"event":"ready"}` on stdout once every attack is under way (the first answer of each export slot, the
 * MCP sessions' wave, the replays), keeps attacking until SIGTERM, then prints `{"event":"report",…}` and
 * exits. Progress goes to stderr.
 *
 * With the viewer token (abilities of the `viewer` role):
 *  - mints more tokens through `POST /v1/tokens` (a viewer may): one for the exports and one per searcher, so
 *    each attack has a per-token API budget of its own;
 *  - `exports` slow-reading CSV exports of the big form on raw sockets: after the response's first chunk
 *    the socket is paused and read one byte a second, so the server meets backpressure at once; a slot
 *    that is refused (429, …) retries after `exportRetryMs`, one that is served holds for `exportHoldMs` and
 *    reconnects (below the server's idle cut-off, so the pressure stays constant however long the run);
 *  - `mcpSessions` MCP sessions opened at once (`initialize`, then `notifications/initialized`), each with
 *    its GET event stream held open when `mcpStreams`; closed by `DELETE /mcp` at the end;
 *  - `searchers` concurrent searches (`q=`) over the big form, back to back;
 *  - `deepBodies` unauthenticated 1 MB `[[[[…]]]]` bodies to `POST /mcp`, each loop sending the next as soon
 *    as the last is answered;
 *  - `mcpReads` loops of stateless MCP `resources/read` of `intake://forms`, each on a token it mints, back
 *    to back; every `mcpReadAbortEvery`th request is abandoned after `mcpReadAbortMs`, a client that goes away;
 *  - `schemaReaders` loops of `GET /v1/forms/{form}/schema/suggested` on the form of ~1 MB payloads, each on a
 *    token it mints, back to back.
 * With the editor token (a viewer holds no `webhooks:write`): `replays` bulk replays of the big form's
 * webhook, each up to 10,000 deliveries that the worker then sends.
 * With the owner token (erasure is for owners and admins): `erasureJobs` real erasure requests queued one
 * after another before the rest starts, each of an address no submission holds, so every job scans all of
 * A's data and erases nothing; then `erasures` loops of erasure dry runs, back to back.
 * A refused request (429, …) is sent again after 250 ms, as a script that ignores Retry-After would.
 */
import http from 'node:http';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

export type AttackOptions = {
  origin: string;
  formId: string;
  webhookId: string;
  /** A's second form, whose submissions carry ~1 MB payloads: what the suggested schemas read. */
  largeFormId: string;
  viewerToken: string;
  editorToken: string;
  ownerToken: string;
  exports: number;
  exportHoldMs: number;
  exportRetryMs: number;
  mcpSessions: number;
  mcpStreams: boolean;
  replays: number;
  searchers: number;
  deepBodies: number;
  deepBytes: number;
  mcpReads: number;
  mcpReadAbortEvery: number;
  mcpReadAbortMs: number;
  erasures: number;
  erasureJobs: number;
  schemaReaders: number;
};

type Tally = Record<string, number>;
const bump = (t: Tally, key: string | number) => void (t[key] = (t[key] ?? 0) + 1);

const SEARCH_TERMS = [
  'pricing',
  'demo',
  'jane',
  'globex',
  'partnership enquiry',
  'shared inbox',
  'eu hosted',
  'schedule call',
  'quote project',
  'feedback',
];

const log = (msg: string) => process.stderr.write(`attacker: ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Why a 429 was refused, from its message: the API budget (the token's or the team's), a cap, or the team's lane. */
function refusal(message: string): string {
  if (message.startsWith('Rate limit of')) return '429 token budget';
  if (message.startsWith("Your team's rate limit")) return '429 team budget';
  if (message.startsWith("A team's whole-data scans")) return '429 scan cap';
  if (/^This (team has|request waited)/.test(message)) return '429 team lane';
  return '429 other';
}

function quantiles(xs: number[]) {
  const s = xs.slice().sort((a, b) => a - b);
  const q = (p: number) => (s.length ? Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]!) : null);
  return { n: s.length, p50: q(0.5), p99: q(0.99), max: q(1) };
}

export async function attack(o: AttackOptions, stopped: Promise<void>, ready: () => void) {
  let stopping = false;
  void stopped.then(() => (stopping = true));
  const url = new URL(o.origin);
  const port = Number(url.port);
  const host = url.hostname;
  const sleepUnlessStopped = (ms: number) => Promise.race([sleep(ms), stopped]);
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });

  // Tokens of its own, minted by the viewer token.
  const minted: Tally = {};
  const mint = async (name: string, abilities: string[]): Promise<string> => {
    const res = await fetch(`${o.origin}/v1/tokens`, {
      method: 'POST',
      headers: { ...auth(o.viewerToken), 'content-type': 'application/json' },
      body: JSON.stringify({ name, abilities }),
    });
    bump(minted, res.status);
    const body = (await res.json()) as { token?: string };
    // Refused: the attack goes on with the viewer token itself.
    return res.status === 201 && body.token ? body.token : o.viewerToken;
  };
  const exportToken = await mint('exports', ['submissions:export']);
  const searchTokens: string[] = [];
  for (let i = 0; i < o.searchers; i++) searchTokens.push(await mint(`search ${i}`, ['submissions:read']));
  const mcpReadTokens: string[] = [];
  for (let i = 0; i < o.mcpReads; i++) mcpReadTokens.push(await mint(`mcp read ${i}`, ['forms:read']));
  const schemaTokens: string[] = [];
  for (let i = 0; i < o.schemaReaders; i++) schemaTokens.push(await mint(`schema ${i}`, ['forms:read']));

  // --- Slow-reading exports -------------------------------------------------------------------------
  const exportsTally: Tally = {};
  const firstWave: Tally = {};
  let held = 0;
  let peakHeld = 0;
  let exportBytes = 0;
  const exportSockets = new Set<net.Socket>();
  /** Sends the export request and resolves with the status of its answer (or a socket error's code). */
  const openExport = () =>
    new Promise<{ status: string; socket: net.Socket }>((resolve) => {
      const socket = net.connect({ host, port });
      exportSockets.add(socket);
      socket.once('close', () => exportSockets.delete(socket));
      let settled = false;
      const settle = (status: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ status, socket });
      };
      const timer = setTimeout(() => settle('no answer in 30 s'), 30_000);
      socket.on('error', (err: NodeJS.ErrnoException) => settle(err.code ?? 'socket error'));
      socket.once('close', () => settle('closed'));
      socket.once('connect', () =>
        socket.write(
          `GET /v1/forms/${o.formId}/submissions/export?format=csv HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${exportToken}\r\n\r\n`,
        ),
      );
      let head = '';
      const onData = (chunk: Buffer) => {
        exportBytes += chunk.length;
        head += chunk.toString('latin1', 0, Math.min(chunk.length, 64));
        const m = /^HTTP\/1\.1 (\d{3})/.exec(head);
        if (!m && head.length < 32) return;
        socket.off('data', onData);
        socket.pause();
        settle(m ? m[1]! : 'malformed');
      };
      socket.on('data', onData);
    });
  /** Reads one byte a second until the hold time is up, the run stops or the server closes the connection. */
  const hold = async (socket: net.Socket) => {
    const until = Date.now() + o.exportHoldMs;
    while (!stopping && !socket.destroyed && Date.now() < until) {
      const byte = socket.read(1) as Buffer | null;
      if (byte) exportBytes += 1;
      await sleepUnlessStopped(1_000);
    }
  };
  const exportSlot = async (first: (status: string) => void) => {
    let isFirst = true;
    while (!stopping) {
      const { status, socket } = await openExport();
      // An attempt cut short by the end of the run is no answer of the server's.
      if (stopping && !isFirst) {
        socket.destroy();
        break;
      }
      bump(exportsTally, status);
      if (isFirst) {
        bump(firstWave, status);
        first(status);
        isFirst = false;
      }
      if (status === '200') {
        held += 1;
        peakHeld = Math.max(peakHeld, held);
        await hold(socket);
        held -= 1;
        socket.destroy();
      } else {
        socket.destroy();
        await sleepUnlessStopped(o.exportRetryMs);
      }
    }
  };
  const exportFirsts: Promise<string>[] = [];
  const exportSlots = Array.from({ length: o.exports }, () => {
    let resolveFirst!: (s: string) => void;
    exportFirsts.push(new Promise<string>((r) => (resolveFirst = r)));
    return exportSlot(resolveFirst);
  });
  await Promise.race([Promise.all(exportFirsts), stopped]);
  log(`exports: first answers ${JSON.stringify(firstWave)}`);

  // --- MCP sessions ---------------------------------------------------------------------------------
  const mcpTally: Tally = {};
  const mcpSamples: string[] = [];
  const mcpLatency: number[] = [];
  const sessions: string[] = [];
  const streams: AbortController[] = [];
  let streamsOpen = 0;
  const mcpHeaders = {
    ...auth(o.viewerToken),
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const openSession = async (i: number) => {
    const t0 = performance.now();
    try {
      const res = await fetch(`${o.origin}/mcp`, {
        method: 'POST',
        headers: mcpHeaders,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: `noisy-${i}`, version: '1' } },
        }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      mcpLatency.push(performance.now() - t0);
      bump(mcpTally, res.status);
      const id = res.headers.get('mcp-session-id');
      if (res.status !== 200 || !id) {
        if (mcpSamples.length < 3) mcpSamples.push(`${res.status} ${text.slice(0, 200)}`);
        return;
      }
      sessions.push(id);
      const sessionHeaders = { ...mcpHeaders, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
      await fetch(`${o.origin}/mcp`, {
        method: 'POST',
        headers: sessionHeaders,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      }).then((r) => r.text());
      if (!o.mcpStreams) return;
      const abort = new AbortController();
      streams.push(abort);
      const stream = await fetch(`${o.origin}/mcp`, {
        headers: { ...sessionHeaders, accept: 'text/event-stream' },
        signal: abort.signal,
      });
      if (stream.status === 200) {
        streamsOpen += 1;
        // Held, never read: the server keeps it until the run ends.
      } else {
        bump(mcpTally, `stream ${stream.status}`);
        await stream.text();
      }
    } catch (err) {
      mcpLatency.push(performance.now() - t0);
      bump(
        mcpTally,
        (err as Error).name === 'AbortError'
          ? 'aborted'
          : ((err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name),
      );
    }
  };
  await Promise.race([Promise.all(Array.from({ length: o.mcpSessions }, (_, i) => openSession(i))), stopped]);
  log(`mcp: ${sessions.length} sessions opened, ${streamsOpen} streams held, answers ${JSON.stringify(mcpTally)}`);

  // --- Bulk replays (editor token) ------------------------------------------------------------------
  const replayTally: Tally = {};
  const replayJobs: string[] = [];
  const replaySamples: string[] = [];
  const replay = async () => {
    try {
      const res = await fetch(`${o.origin}/v1/webhooks/${o.webhookId}/replay`, {
        method: 'POST',
        headers: { ...auth(o.editorToken), 'content-type': 'application/json' },
        body: '{}',
        signal: AbortSignal.timeout(30_000),
      });
      const body = (await res.json()) as { job_id?: string };
      bump(replayTally, res.status);
      if (body.job_id) replayJobs.push(body.job_id);
      else if (replaySamples.length < 3) replaySamples.push(`${res.status} ${JSON.stringify(body).slice(0, 200)}`);
    } catch (err) {
      bump(replayTally, (err as Error).name);
    }
  };
  await Promise.race([Promise.all(Array.from({ length: o.replays }, replay)), stopped]);
  log(`replays: ${JSON.stringify(replayTally)}`);

  // --- Searches -------------------------------------------------------------------------------------
  const searchTally: Tally = {};
  const searchLatency: number[] = [];
  const searcher = async (token: string, i: number) => {
    for (let n = i; !stopping; n++) {
      const t0 = performance.now();
      try {
        const q = encodeURIComponent(SEARCH_TERMS[n % SEARCH_TERMS.length]!);
        const res = await fetch(`${o.origin}/v1/forms/${o.formId}/submissions?q=${q}&per_page=100`, {
          headers: auth(token),
          signal: AbortSignal.timeout(30_000),
        });
        await res.arrayBuffer();
        bump(searchTally, res.status);
        if (res.status === 200) searchLatency.push(performance.now() - t0);
        // Refused: try again soon, as a script that ignores Retry-After would.
        else await sleepUnlessStopped(250);
      } catch (err) {
        bump(searchTally, (err as Error).name);
      }
    }
  };
  const searchers = searchTokens.map(searcher);

  // --- Deep bodies, unauthenticated -----------------------------------------------------------------
  const depth = Math.floor(o.deepBytes / 2);
  const deepBody = Buffer.from('['.repeat(depth) + ']'.repeat(depth));
  const deepTally: Tally = {};
  const deepLatency: number[] = [];
  const sendDeep = () =>
    new Promise<string>((resolve) => {
      const req = http.request(
        {
          host,
          port,
          path: '/mcp',
          method: 'POST',
          agent: false,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'content-length': deepBody.length,
          },
        },
        (res) => {
          res.resume();
          res.once('end', () => resolve(String(res.statusCode)));
          res.once('error', () => resolve(String(res.statusCode)));
        },
      );
      req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
      req.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      req.end(deepBody);
    });
  const deepLoop = async () => {
    while (!stopping) {
      const t0 = performance.now();
      const outcome = await sendDeep();
      deepLatency.push(performance.now() - t0);
      bump(deepTally, outcome);
    }
  };
  const deepLoops = Array.from({ length: o.deepBodies }, deepLoop);

  // --- Erasures (owner token) -----------------------------------------------------------------------
  /** One erasure request: its answer's status (a 429 with why) and its job id, if one was queued. */
  const erase = async (body: object): Promise<{ outcome: string; jobId?: string }> => {
    try {
      const res = await fetch(`${o.origin}/v1/erasure`, {
        method: 'POST',
        headers: { ...auth(o.ownerToken), 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const answer = (await res.json()) as { job_id?: string; message?: string };
      return { outcome: res.status === 429 ? refusal(answer.message ?? '') : String(res.status), jobId: answer.job_id };
    } catch (err) {
      return { outcome: (err as Error).name };
    }
  };
  const erasureJobTally: Tally = {};
  const erasureJobs: string[] = [];
  for (let i = 0; i < o.erasureJobs && !stopping; i++) {
    const { outcome, jobId } = await erase({ email: `nobody${i}@example.org` });
    bump(erasureJobTally, outcome);
    if (jobId) erasureJobs.push(jobId);
  }
  log(`erasure jobs: ${JSON.stringify(erasureJobTally)}`);
  const dryRunTally: Tally = {};
  const dryRunLatency: number[] = [];
  const dryRunLoop = async () => {
    while (!stopping) {
      const t0 = performance.now();
      const { outcome } = await erase({ email: 'nobody@example.org', dry_run: true });
      bump(dryRunTally, outcome);
      if (outcome === '200') dryRunLatency.push(performance.now() - t0);
      else await sleepUnlessStopped(250);
    }
  };
  const dryRunLoops = Array.from({ length: o.erasures }, dryRunLoop);

  // --- MCP resource reads, some abandoned -----------------------------------------------------------
  const mcpReadTally: Tally = {};
  const mcpReadLatency: number[] = [];
  const mcpReadSamples: string[] = [];
  const mcpReader = async (token: string, i: number) => {
    for (let n = 1; !stopping; n++) {
      const goesAway = o.mcpReadAbortEvery > 0 && (n + i) % o.mcpReadAbortEvery === 0;
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), goesAway ? o.mcpReadAbortMs : 30_000);
      const t0 = performance.now();
      let outcome: string;
      try {
        const res = await fetch(`${o.origin}/mcp`, {
          method: 'POST',
          headers: { ...mcpHeaders, ...auth(token) },
          body: JSON.stringify({ jsonrpc: '2.0', id: n, method: 'resources/read', params: { uri: 'intake://forms' } }),
          signal: abort.signal,
        });
        const answer = (await res.json()) as {
          result?: unknown;
          error?: { message?: string; data?: { message?: string } };
        };
        // The lane's refusal inside a read comes back as a JSON-RPC error whose message starts with the code.
        const message = answer.error?.data?.message ?? answer.error?.message?.replace(/^[a-z_]+: /, '') ?? '';
        outcome =
          res.status === 429 || answer.error?.message?.startsWith('rate_limited')
            ? refusal(message)
            : answer.result
              ? String(res.status)
              : `${res.status} error`;
        if (outcome.endsWith('error') && mcpReadSamples.length < 3)
          mcpReadSamples.push(JSON.stringify(answer).slice(0, 200));
        if (answer.result) mcpReadLatency.push(performance.now() - t0);
      } catch (err) {
        outcome = abort.signal.aborted
          ? goesAway
            ? 'went away'
            : 'no answer in 30 s'
          : ((err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name);
      } finally {
        clearTimeout(timer);
      }
      bump(mcpReadTally, outcome);
      if (outcome.startsWith('429')) await sleepUnlessStopped(250);
    }
  };
  const mcpReaders = mcpReadTokens.map(mcpReader);

  // --- Suggested schemas of the large form ----------------------------------------------------------
  const schemaTally: Tally = {};
  const schemaLatency: number[] = [];
  const schemaReader = async (token: string) => {
    while (!stopping) {
      const t0 = performance.now();
      try {
        const res = await fetch(`${o.origin}/v1/forms/${o.largeFormId}/schema/suggested`, {
          headers: auth(token),
          signal: AbortSignal.timeout(30_000),
        });
        const answer = (await res.json()) as { message?: string };
        bump(schemaTally, res.status === 429 ? refusal(answer.message ?? '') : res.status);
        if (res.status === 200) schemaLatency.push(performance.now() - t0);
        else await sleepUnlessStopped(250);
      } catch (err) {
        bump(schemaTally, (err as Error).name);
      }
    }
  };
  const schemaReaders = schemaTokens.map(schemaReader);

  ready();
  const started = Date.now();
  const progress = setInterval(() => {
    log(
      `${Math.round((Date.now() - started) / 1000)} s: exports held ${held} (${JSON.stringify(exportsTally)}), ` +
        `searches ${JSON.stringify(searchTally)}, deep bodies ${JSON.stringify(deepTally)}, MCP reads ${JSON.stringify(mcpReadTally)}, ` +
        `erasure dry runs ${JSON.stringify(dryRunTally)}, suggested schemas ${JSON.stringify(schemaTally)}`,
    );
  }, 5_000);
  await stopped;
  clearInterval(progress);

  // Wind down: everything held is let go, the sessions are ended.
  for (const s of exportSockets) s.destroy();
  for (const a of streams) a.abort();
  const deleted: Tally = {};
  await Promise.all(
    sessions.map((id) =>
      fetch(`${o.origin}/mcp`, {
        method: 'DELETE',
        headers: { ...mcpHeaders, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
        signal: AbortSignal.timeout(5_000),
      })
        .then(async (r) => (await r.text(), bump(deleted, r.status)))
        .catch((err: Error) => bump(deleted, err.name)),
    ),
  );
  await Promise.race([
    Promise.all([...exportSlots, ...searchers, ...deepLoops, ...dryRunLoops, ...mcpReaders, ...schemaReaders]),
    sleep(35_000),
  ]);

  const jobs: Array<{ id: string; status?: string; done?: number; total?: number }> = [];
  for (const id of replayJobs) {
    try {
      const res = await fetch(`${o.origin}/v1/jobs/${id}`, {
        headers: auth(o.editorToken),
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await res.json()) as { data?: { status?: string; done?: number; total?: number } };
      jobs.push({ id, status: body.data?.status, done: body.data?.done, total: body.data?.total });
    } catch {
      jobs.push({ id });
    }
  }
  // What became of the erasure jobs by the end of the run (`GET /v1/jobs/{id}` spends no API budget).
  const erasureJobStatuses: Tally = {};
  for (const id of erasureJobs) {
    try {
      const res = await fetch(`${o.origin}/v1/jobs/${id}`, {
        headers: auth(o.ownerToken),
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await res.json()) as { data?: { status?: string } };
      bump(erasureJobStatuses, body.data?.status ?? res.status);
    } catch (err) {
      bump(erasureJobStatuses, (err as Error).name);
    }
  }

  return {
    attackSeconds: Math.round((Date.now() - started) / 100) / 10,
    tokensMinted: minted,
    exports: { slots: o.exports, firstAnswers: firstWave, answers: exportsTally, peakHeld, bytesRead: exportBytes },
    mcp: {
      tried: o.mcpSessions,
      opened: sessions.length,
      streamsHeld: streamsOpen,
      answers: mcpTally,
      samples: mcpSamples,
      initializeMs: quantiles(mcpLatency),
      deleted,
    },
    replays: { tried: o.replays, answers: replayTally, samples: replaySamples, jobs },
    searches: { searchers: o.searchers, answers: searchTally, okLatencyMs: quantiles(searchLatency) },
    deepBodies: {
      parallel: o.deepBodies,
      bytes: deepBody.length,
      answers: deepTally,
      latencyMs: quantiles(deepLatency),
    },
    mcpReads: {
      parallel: o.mcpReads,
      abortEvery: o.mcpReadAbortEvery,
      abortMs: o.mcpReadAbortMs,
      answers: mcpReadTally,
      samples: mcpReadSamples,
      okLatencyMs: quantiles(mcpReadLatency),
    },
    erasures: {
      jobs: { tried: o.erasureJobs, answers: erasureJobTally, statusAtEnd: erasureJobStatuses },
      dryRuns: { parallel: o.erasures, answers: dryRunTally, okLatencyMs: quantiles(dryRunLatency) },
    },
    suggestedSchemas: { parallel: o.schemaReaders, answers: schemaTally, okLatencyMs: quantiles(schemaLatency) },
  };
}

export type AttackReport = Awaited<ReturnType<typeof attack>>;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const options = JSON.parse(process.env.NOISY_ATTACK ?? '') as AttackOptions;
  let stop!: () => void;
  const stopped = new Promise<void>((r) => (stop = r));
  process.on('SIGTERM', () => stop());
  process.on('SIGINT', () => stop());
  const report = await attack(options, stopped, () => process.stdout.write(`${JSON.stringify({ event: 'ready' })}\n`));
  process.stdout.write(`${JSON.stringify({ event: 'report', report })}\n`);
  process.exit(0);
}
