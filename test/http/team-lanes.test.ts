import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, type TestMember } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';
import { call, errorOf } from '../support/mcp-tools.ts';

/**
 * A team's lane (issue 25): one process runs at most INTAKE_TEAM_CONCURRENCY of a team's operations at once
 * and keeps INTAKE_TEAM_QUEUE more in line; the next is refused with 429 `rate_limited` at once, on REST and
 * MCP alike, while every other team's requests pass.
 */
const t = await startLiveTestApp({ INTAKE_TEAM_CONCURRENCY: '1', INTAKE_TEAM_QUEUE: '1' });

const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
});

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'intake-lanes-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { requestInit: { headers: bearer(token) } }),
  );
  clients.push(client);
  return client;
}

const api = (member: TestMember, path: string, init: RequestInit = {}) =>
  fetch(`${t.baseUrl}${path}`, {
    ...init,
    headers: { ...bearer(member.token), 'content-type': 'application/json', ...init.headers },
  });

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

describe("a team's lane", () => {
  it(
    'runs one operation, keeps one in line, refuses the next with 429 on REST and MCP; another team passes; the line then runs',
    { timeout: 30_000 },
    async () => {
      const a = await makeTeam(t);
      const b = await makeTeam(t);
      const form = await makePublishedForm(t, a);
      const session = await connect(a.token);

      // A's first operation waits on a row lock the test holds: it keeps A's one running place.
      const locker = new pg.Client({ connectionString: inject('databaseUrl') });
      await locker.connect();
      onTestFinished(() => locker.end());
      await locker.query('begin');
      await locker.query('select 1 from forms where id = $1 for update', [form.id]);
      const renamed = api(a, `/v1/forms/${form.id}`, { method: 'PUT', body: JSON.stringify({ name: 'Renamed' }) });
      for (let i = 0; ; i++) {
        await locker.query('select pg_stat_clear_snapshot()'); // a transaction sees one snapshot of the activity otherwise
        const { rows } = await locker.query(
          `select 1 from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%forms%' and datname = current_database()`,
        );
        if (rows.length) break;
        expect(i, 'the rename never reached its lock').toBeLessThan(200);
        await sleep(25);
      }

      // The second waits in line: it cannot answer while the first runs.
      let listed: Response | null = null;
      const listing = api(a, '/v1/forms').then((r) => (listed = r));
      await sleep(300);
      expect(listed).toBeNull();

      // The third is refused at once, in the API's shape.
      const started = performance.now();
      const refused = await api(a, '/v1/forms');
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await refused.json()).toMatchObject({
        error: 'rate_limited',
        retry_after: 1,
        message: expect.stringContaining('1 requests running and 1 waiting'),
      });

      // MCP passes through the same lane: a tool call is a tool error, an initialize a JSON-RPC 429.
      expect(errorOf(await call(session, 'list_forms'))).toMatchObject({ error: 'rate_limited', retry_after: 1 });
      const init = await fetch(`${t.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          ...bearer(a.token),
          Accept: 'application/json, text/event-stream',
          'Content-Type': 'application/json',
        },
        body: JSON.stringify(INIT),
      });
      expect(init.status).toBe(429);
      expect(init.headers.get('mcp-session-id')).toBeNull();
      expect(await init.json()).toMatchObject({
        jsonrpc: '2.0',
        error: { code: -32000, data: { error: 'rate_limited', retry_after: 1 } },
      });

      // Another team is served at once, on both.
      const other = await api(b, '/v1/forms');
      expect(other.status).toBe(200);
      expect(errorOf(await call(await connect(b.token), 'list_forms'))).toBeNull();

      // The lock goes: the first and the one in line finish, and A is served again.
      await locker.query('commit');
      expect((await renamed).status).toBe(200);
      await listing;
      expect(listed!.status).toBe(200);
      expect((await api(a, '/v1/forms')).status).toBe(200);
      expect(errorOf(await call(session, 'list_forms'))).toBeNull();
    },
  );
});
