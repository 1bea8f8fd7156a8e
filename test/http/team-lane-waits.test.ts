import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeMember, makeTeam, type TestMember } from '../support/harness.ts';
import { startLiveTestApp, type LiveTestApp } from '../support/live-server.ts';

/**
 * A team's lane cannot be locked: an MCP message never waits for a place its own message holds, a waiter
 * leaves the line on its deadline or when its client goes away, and the team is served again right after.
 */
const defaults = await startLiveTestApp();
const tight = await startLiveTestApp({
  INTAKE_TEAM_CONCURRENCY: '1',
  INTAKE_TEAM_QUEUE: '1',
  INTAKE_TEAM_QUEUE_WAIT_MS: '800',
});

const api = (t: LiveTestApp, member: TestMember, path: string, init: RequestInit = {}) =>
  fetch(`${t.baseUrl}${path}`, {
    ...init,
    headers: { ...bearer(member.token), 'content-type': 'application/json', ...init.headers },
  });

/** One stateless MCP message (no session): its HTTP answer. */
const mcp = (t: LiveTestApp, member: TestMember, message: Record<string, unknown>, signal?: AbortSignal) =>
  fetch(`${t.baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      ...bearer(member.token),
      Accept: 'application/json, text/event-stream',
      'Content-Type': 'application/json',
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
    ...(signal ? { signal } : {}),
  });

const readForms = (t: LiveTestApp, member: TestMember, id: number, signal?: AbortSignal) =>
  mcp(t, member, { id, method: 'resources/read', params: { uri: 'intake://forms' } }, signal);

/** Holds a row lock on the form until the test ends, and waits until `n` statements queue behind it. */
async function lockForm(formId: string) {
  const locker = new pg.Client({ connectionString: inject('databaseUrl') });
  await locker.connect();
  onTestFinished(() => locker.end());
  await locker.query('begin');
  await locker.query('select 1 from forms where id = $1 for update', [formId]);
  return {
    release: () => locker.query('commit'),
    waitForBlocked: async () => {
      for (let i = 0; ; i++) {
        await locker.query('select pg_stat_clear_snapshot()');
        const { rows } = await locker.query(
          `select 1 from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%forms%' and datname = current_database()`,
        );
        if (rows.length) return;
        expect(i, 'the operation never reached its lock').toBeLessThan(200);
        await sleep(25);
      }
    },
  };
}

describe("a team's lane cannot be locked", () => {
  it(
    'eight parallel resource reads by a viewer all answer, and the owner is served right after',
    { timeout: 30_000 },
    async () => {
      const owner = await makeTeam(defaults);
      const viewer = await makeMember(defaults, owner.teamId, 'viewer');
      await makePublishedForm(defaults, owner);
      const started = performance.now();
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => readForms(defaults, viewer, i + 1, AbortSignal.timeout(15_000))),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        const body = (await answer.json()) as { result?: { contents: Array<{ text: string }> } };
        expect(JSON.parse(body.result!.contents[0]!.text).data).toHaveLength(1);
      }
      expect(performance.now() - started).toBeLessThan(10_000);
      expect((await api(defaults, owner, '/v1/forms')).status).toBe(200);
    },
  );

  it(
    'with one place, a resource read takes that place once (it never queues behind its own message)',
    { timeout: 20_000 },
    async () => {
      const owner = await makeTeam(tight);
      await makePublishedForm(tight, owner);
      const answer = await readForms(tight, owner, 1, AbortSignal.timeout(10_000));
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { result?: unknown }).result).toBeDefined();
    },
  );

  it(
    'a waiter whose client goes away leaves the line, and one that waits too long is refused',
    { timeout: 30_000 },
    async () => {
      const a = await makeTeam(tight);
      const b = await makeTeam(tight);
      const form = await makePublishedForm(tight, a);
      const lock = await lockForm(form.id);
      // The rename holds A's one place, blocked on the lock.
      const renamed = api(tight, a, `/v1/forms/${form.id}`, {
        method: 'PUT',
        body: JSON.stringify({ name: 'Renamed' }),
      });
      await lock.waitForBlocked();

      // A REST request and an MCP resource read take the one place in line in turn, and go away.
      for (const send of [
        (signal: AbortSignal) => api(tight, a, '/v1/forms', { signal }),
        (signal: AbortSignal) => readForms(tight, a, 7, signal),
      ]) {
        const gone = new AbortController();
        const waiting = send(gone.signal).catch(() => 'aborted');
        await sleep(200);
        gone.abort();
        expect(await waiting).toBe('aborted');
        await sleep(100);
      }

      // The line is free again: the next request waits in it (it is not refused at once), until its deadline.
      const started = performance.now();
      const waited = await api(tight, a, '/v1/forms');
      const took = performance.now() - started;
      expect(waited.status).toBe(429);
      expect(await waited.json()).toMatchObject({
        error: 'rate_limited',
        retry_after: 1,
        message: expect.stringContaining('waited 0.8 s'),
      });
      expect(took).toBeGreaterThanOrEqual(700);
      expect(took).toBeLessThan(5_000);

      // Another team passes meanwhile; once the lock goes, A is served again.
      expect((await api(tight, b, '/v1/forms')).status).toBe(200);
      await lock.release();
      expect((await renamed).status).toBe(200);
      expect((await api(tight, a, '/v1/forms')).status).toBe(200);
    },
  );
});
