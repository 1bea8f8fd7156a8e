import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { authenticate } from '../../server/domain/accounts/tokens.ts';
import { createMcpServer } from '../../server/transports/mcp/server.ts';
import { VERSION } from '../../server/version.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, makeToken, startTestApp, seed } from '../support/harness.ts';
import { call, errorOf } from '../support/mcp-tools.ts';

/**
 * A team's searches (`q=`) have a budget of their own (INTAKE_SEARCH_TEAM_RATE_LIMIT a minute, counted over a
 * sliding 10 seconds, issue 25): each reads thousands of rows, so the ordinary API budget alone lets one team's
 * searchers keep a database core busy. Every token and transport of the team counts; plain lists and other
 * teams do not.
 */
// 18 a minute: 3 per 10-second window.
const t = await startTestApp({ INTAKE_SEARCH_TEAM_RATE_LIMIT: '18' });
// The least search time there is, 1 ms a minute, which any search spends.
const timed = await startTestApp({ INTAKE_SEARCH_TEAM_TIME_MS: '1' });

/** Waits, when needed, until the current 10-second window has at least `leftMs` to run. */
async function withinTenSecondWindow(leftMs = 6_000): Promise<void> {
  const into = Date.now() % 10_000;
  if (10_000 - into < leftMs) await new Promise((r) => setTimeout(r, 10_000 - into + 200));
}

describe('the search budget', () => {
  it('a team past its searches in the window: 429 rate_limited with Retry-After, on every token and over MCP; lists and other teams go on', async () => {
    const owner = await makeTeam(t);
    const second = await makeToken(t, owner);
    const other = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const theirs = await makePublishedForm(t, other);
    const search = (token: string, formId = form.id, q = 'pricing') =>
      t.http.get(`/v1/forms/${formId}/submissions?q=${q}`).set(bearer(token));

    await withinTenSecondWindow();
    // Three searches from two tokens of the team fill its window.
    expect((await search(owner.token)).status).toBe(200);
    expect((await search(second.token)).status).toBe(200);
    expect((await search(owner.token, form.id, 'demo')).status).toBe(200);

    const refused = await search(second.token);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'rate_limited' });
    // Sliding: until this window's four fade enough in the next one for one more.
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(15);

    // The same budget over MCP.
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const caller = (await authenticate(t.ctx, owner.token))!;
    await createMcpServer(t.ctx, async () => caller, VERSION).connect(serverSide);
    const client = new Client({ name: 'search-budget', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      const viaMcp = await call(client, 'list_submissions', { form: form.id, q: 'pricing' });
      expect(errorOf(viaMcp)).toMatchObject({ error: 'rate_limited' });
    } finally {
      await client.close();
    }

    // A list without a search, and another team's search, are not held back.
    expect((await t.http.get(`/v1/forms/${form.id}/submissions`).set(bearer(owner.token))).status).toBe(200);
    expect((await search(other.token, theirs.id)).status).toBe(200);
  });

  it(
    'a team that spent its searches gets them back as the last window fades, not all at once as the next one begins',
    { timeout: 30_000 },
    async () => {
      const owner = await makeTeam(t);
      const form = await makePublishedForm(t, owner);
      const search = () => t.http.get(`/v1/forms/${form.id}/submissions?q=pricing`).set(bearer(owner.token));

      await withinTenSecondWindow();
      for (let i = 0; i < 3; i++) expect((await search()).status).toBe(200);
      // The next window's first moments: the last one's three searches still weigh almost whole (in fixed
      // windows all three were there again at once).
      await new Promise((r) => setTimeout(r, 10_000 - (Date.now() % 10_000) + 100));
      const refused = await search();
      expect(refused.status).toBe(429);
      // One more fits once a third of the last window's weight is gone: ~6.6 s in.
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(5);
      expect(retryAfter).toBeLessThanOrEqual(8);
    },
  );

  // Up to 6 s waiting for a fresh window, 30,000 rows seeded and three searches over them one after another,
  // watched without a pause (a search takes ~40 ms; a sampler pausing 10 ms saw none in a CI run): ~11 s
  // alone, and three times that on a machine running the whole suite.
  it(
    "a team's searches take turns: at most one of them runs at a time in a process, the others wait (none refused)",
    { timeout: 90_000 },
    async () => {
      const owner = await makeTeam(t);
      const form = await makePublishedForm(t, owner);
      // Enough rows that a search takes a while: three at once would overlap if let.
      await seed(
        t,
        `insert into submissions (id, team_id, form_id, status, payload, received_at)
       select 'subm_turns' || lpad(g::text, 20, '0'), $1, $2, 'processed',
              jsonb_build_object('message', 'pricing question ' || md5(g::text), 'email', 'p' || g || '@example.test'),
              now() - g * interval '1 second'
         from generate_series(1, 30000) g`,
        [owner.teamId, form.id],
      );
      await withinTenSecondWindow();
      let running = true;
      let most = 0;
      const sampling = (async () => {
        while (running) {
          const { rows } = await t.ctx.db.query<{ n: number }>(
            `select count(*)::int as n from pg_stat_activity
            where datname = current_database() and state = 'active' and query like '%submission_search_query%' and query not like '%pg_stat_activity%'`,
          );
          most = Math.max(most, rows[0]!.n);
        }
      })();
      const answers = await Promise.all(
        ['pricing', 'question', 'pricing question'].map((q) =>
          t.http.get(`/v1/forms/${form.id}/submissions?q=${encodeURIComponent(q)}`).set(bearer(owner.token)),
        ),
      );
      running = false;
      await sampling;
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect(answers.every((a) => a.body.meta.total > 0)).toBe(true);
      expect(most).toBe(1);
    },
  );

  it("a team whose searches spent the window's time: 429 rate_limited with Retry-After; its lists and another team's searches go on", async () => {
    const owner = await makeTeam(timed);
    const other = await makeTeam(timed);
    const form = await makePublishedForm(timed, owner);
    const theirs = await makePublishedForm(timed, other);
    const search = (token: string, formId: string) =>
      timed.http.get(`/v1/forms/${formId}/submissions?q=pricing`).set(bearer(token));

    // Within one minute's window (the search time's).
    if (60_000 - (Date.now() % 60_000) < 6_000)
      await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 200));
    // Allowed while the minute has time left; charged afterwards with what it took (at least 1 ms).
    expect((await search(owner.token, form.id)).status).toBe(200);
    const refused = await search(owner.token, form.id);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'rate_limited' });
    expect(refused.body.message).toContain('database time');
    // Sliding: the time spent past the limit weighs until the next minute has faded it out, up to two minutes.
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(120);

    expect((await timed.http.get(`/v1/forms/${form.id}/submissions`).set(bearer(owner.token))).status).toBe(200);
    expect((await search(other.token, theirs.id)).status).toBe(200);
  });
});
