import { once } from 'node:events';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Analysis } from '../../server/infra/ai/provider.ts';

/** One POST /v1/chat/completions as the server received it. */
export type ChatRequest = {
  headers: IncomingHttpHeaders;
  body: {
    model: string;
    messages: Array<{ role: string; content: string }>;
    response_format?: {
      type: string;
      json_schema?: { name: string; strict?: boolean; schema: Record<string, unknown> };
    };
    [key: string]: unknown;
  };
};

/**
 * What the server answers: a completion whose message content is the analysis as JSON, raw message
 * content (e.g. not JSON at all), or an HTTP error. `delayMs` holds the answer back.
 */
export type ChatReply = ({ analysis: Analysis } | { content: string } | { status: number; message: string }) & {
  delayMs?: number;
};

export type OpenAiTestServer = {
  /** Base URL for OPENAI_BASE_URL, ending in /v1. */
  baseUrl: string;
  requests: ChatRequest[];
  /** Decides each answer; tests replace it. */
  reply: (req: ChatRequest) => ChatReply;
  /** Resolves at the next request's arrival (before any delay). */
  nextRequest(): Promise<ChatRequest>;
  close(): Promise<void>;
};

const CLEAN: Analysis = { score: 0.05, verdict: 'clean', reasons: ['looks legitimate'], category: 'other' };

/**
 * A small OpenAI-compatible server on 127.0.0.1 (random port): POST /v1/chat/completions answers a
 * `chat.completion` the way the real API does; every request is recorded.
 */
export async function startOpenAiTestServer(): Promise<OpenAiTestServer> {
  const requests: ChatRequest[] = [];
  let waiters: Array<(r: ChatRequest) => void> = [];
  let completions = 0;
  const timers = new Set<NodeJS.Timeout>();

  const state: Pick<OpenAiTestServer, 'reply'> = { reply: () => ({ analysis: CLEAN }) };

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
      return;
    }
    const request: ChatRequest = { headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
    requests.push(request);
    const reply = state.reply(request);
    const current = waiters;
    waiters = [];
    for (const w of current) w(request);

    const answer = () => {
      if (res.destroyed) return; // the client went away (e.g. its process was killed)
      if ('status' in reply) {
        res
          .writeHead(reply.status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: reply.message, type: 'server_error', param: null, code: null } }));
        return;
      }
      const content = 'analysis' in reply ? JSON.stringify(reply.analysis) : reply.content;
      completions += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-test-${completions}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: request.body.model,
          choices: [
            { index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' },
          ],
          usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 },
        }),
      );
    };
    if (reply.delayMs) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, reply.delayMs);
      timers.add(timer);
    } else answer();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get reply() {
      return state.reply;
    },
    set reply(fn) {
      state.reply = fn;
    },
    nextRequest: () => new Promise((resolve) => waiters.push(resolve)),
    async close() {
      for (const t of timers) clearTimeout(t);
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
