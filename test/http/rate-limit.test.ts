import { setTimeout as sleep } from 'node:timers/promises';
import type { Response } from 'supertest';
import { describe, expect, it } from 'vitest';
import { bearer, makeTeam, makeToken, startTestApp, type TestApp, type TestMember } from '../support/harness.ts';

const LIMIT = 5;
// Two processes' worth of app on one database: the budget lives in Postgres, not in either of them.
const a = await startTestApp({ INTAKE_API_RATE_LIMIT: String(LIMIT) });
const b = await startTestApp({ INTAKE_API_RATE_LIMIT: String(LIMIT) });
// The budget guards the submissions (and webhooks) routes, per DESIGN.md.
let PATH = '';

/** A team with a form; PATH becomes that form's submission list. */
async function ownerWithForm(): Promise<TestMember> {
  const owner = await makeTeam(a, { plan: 'pro' });
  const form = await a.http.post('/v1/forms').set(bearer(owner.token)).send({ name: 'Rate limited' });
  PATH = `/v1/forms/${form.body.data.id}/submissions`;
  return owner;
}

function rateLimit(res: Response): { limit: number; remaining: number; reset: number } {
  const header = String(res.headers['ratelimit'] ?? '');
  const m = /^limit=(\d+), remaining=(\d+), reset=(\d+)$/.exec(header);
  expect(m, `RateLimit header: "${header}"`).not.toBeNull();
  return { limit: Number(m![1]), remaining: Number(m![2]), reset: Number(m![3]) };
}

/**
 * A token whose budget starts with plenty of its fixed window left, so the sequence below cannot
 * straddle a window boundary (the window resets every minute on the minute).
 */
async function tokenWithTimeLeft(
  app: TestApp,
  owner: TestMember,
): Promise<{ token: string; tokenId: string; first: Response }> {
  for (;;) {
    const { token, tokenId } = await makeToken(app, owner);
    const first = await app.http.get(PATH).set(bearer(token));
    expect(first.status).toBe(200);
    const { reset } = rateLimit(first);
    if (reset >= 10) return { token, tokenId, first };
    await sleep((reset + 1) * 1000);
  }
}

describe('API rate limit', () => {
  it('is one per-token budget shared by every app instance, then 429 with Retry-After', async () => {
    const owner = await ownerWithForm();
    const { token, first } = await tokenWithTimeLeft(a, owner);
    expect(first.headers['ratelimit-policy']).toBe(`${LIMIT};w=60`);
    const remaining = [rateLimit(first).remaining];

    // Alternate between the two instances: b, a, b, a for requests 2–5.
    for (let i = 2; i <= LIMIT; i++) {
      const app = i % 2 === 0 ? b : a;
      const res = await app.http.get(PATH).set(bearer(token));
      expect(res.status, `request ${i}`).toBe(200);
      expect(res.headers['ratelimit-policy']).toBe(`${LIMIT};w=60`);
      const rl = rateLimit(res);
      expect(rl.limit).toBe(LIMIT);
      remaining.push(rl.remaining);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);

    const sixth = await b.http.get(PATH).set(bearer(token));
    expect(sixth.status).toBe(429);
    expect(sixth.headers['x-request-id']).toBeTruthy();
    const retryAfter = Number(sixth.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(sixth.body).toEqual({ error: 'rate_limited', message: expect.any(String), retry_after: retryAfter });
    expect(sixth.body.message.length).toBeGreaterThan(0);
    expect(rateLimit(sixth)).toMatchObject({ limit: LIMIT, remaining: 0 });

    // Still limited on the other instance.
    const seventh = await a.http.get(PATH).set(bearer(token));
    expect(seventh.status).toBe(429);
    expect(seventh.headers['retry-after']).toBeTruthy();

    // Another token, even of the same member, has its own budget.
    const other = await makeToken(a, owner);
    const fresh = await b.http.get(PATH).set(bearer(other.token));
    expect(fresh.status).toBe(200);
    expect(rateLimit(fresh).remaining).toBe(LIMIT - 1);
  });

  it('refuses a spent token from memory: a client looping on 429s costs no statement until the window resets', async () => {
    const owner = await ownerWithForm();
    const { token, tokenId } = await tokenWithTimeLeft(a, owner); // one hit used
    const hits = async () =>
      (
        await a.ctx.db.query<{ hits: number }>(
          `select hits from rate_limit_windows where key = $1 order by window_start desc limit 1`,
          [`api:${tokenId}`],
        )
      ).rows[0]?.hits;
    for (let i = 2; i <= LIMIT; i++)
      expect((await a.http.get(PATH).set(bearer(token))).status, `request ${i}`).toBe(200);
    const refused = await a.http.get(PATH).set(bearer(token));
    expect(refused.status).toBe(429);
    expect(await hits()).toBe(LIMIT + 1);

    // Refused again and again on the same instance: same answer, headers included, and no further hit counted.
    for (let i = 0; i < 5; i++) {
      const again = await a.http.get(PATH).set(bearer(token));
      expect(again.status).toBe(429);
      expect(again.body).toEqual({
        error: 'rate_limited',
        message: refused.body.message,
        retry_after: Number(again.headers['retry-after']),
      });
      expect(Number(again.headers['retry-after'])).toBeLessThanOrEqual(Number(refused.headers['retry-after']));
      expect(rateLimit(again)).toMatchObject({ limit: LIMIT, remaining: 0 });
    }
    expect(await hits()).toBe(LIMIT + 1);
    // Another instance has not seen it spent: its first refusal reads the window.
    expect((await b.http.get(PATH).set(bearer(token))).status).toBe(429);
    expect(await hits()).toBe(LIMIT + 2);
  });

  it('counts concurrent requests exactly across instances', async () => {
    const owner = await ownerWithForm();
    const { token } = await tokenWithTimeLeft(a, owner); // one hit used
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).http.get(PATH).set(bearer(token))),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT - 1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10 - (LIMIT - 1));
  });

  it('does not spend the budget on requests that fail authentication', async () => {
    const owner = await ownerWithForm();
    const { token } = await tokenWithTimeLeft(a, owner);
    for (let i = 0; i < LIMIT + 2; i++) {
      expect((await a.http.get(PATH).set(bearer(`intk_${'Z'.repeat(40)}`))).status).toBe(401);
    }
    const res = await b.http.get(PATH).set(bearer(token));
    expect(res.status).toBe(200);
    expect(rateLimit(res).remaining).toBe(LIMIT - 2);
  });

  it('leaves routes outside submissions and webhooks unmetered', async () => {
    const owner = await ownerWithForm();
    const { token } = await makeToken(a, owner);
    for (let i = 0; i < LIMIT + 2; i++) {
      const res = await (i % 2 ? a : b).http.get('/v1/me').set(bearer(token));
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit']).toBeUndefined();
    }
    const listed = await a.http.get(PATH).set(bearer(token));
    expect(rateLimit(listed).remaining).toBe(LIMIT - 1);
  });
});

// Every token 5 a minute, all of a team's tokens together 8: a member who mints tokens does not multiply the budget.
const TEAM_LIMIT = 8;
const c = await startTestApp({ INTAKE_API_RATE_LIMIT: String(LIMIT), INTAKE_API_TEAM_RATE_LIMIT: String(TEAM_LIMIT) });

describe("a team's API budget", () => {
  it('binds all its tokens together: a minted token gets only what the team has left; another team is unaffected', async () => {
    const owner = await makeTeam(c, { plan: 'pro' });
    const form = await c.http.post('/v1/forms').set(bearer(owner.token)).send({ name: 'Team budget' });
    const path = `/v1/forms/${form.body.data.id}/submissions`;
    // The first request says how long the window has left: start again in the next one if it could end mid-test.
    for (;;) {
      const probe = await c.http.get(path).set(bearer(owner.token));
      expect(probe.status).toBe(200);
      if (rateLimit(probe).reset >= 10) break;
      await sleep((rateLimit(probe).reset + 1) * 1000);
    }
    const used = (await c.http.get(path).set(bearer(owner.token))).status === 200 ? 2 : 1;
    expect(used).toBe(2);

    // The first minted token spends its own 5 (the team then has 1 left): its own budget binds.
    const first = await makeToken(c, owner);
    const answers: string[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const res = await c.http.get(path).set(bearer(first.token));
      const rl = rateLimit(res);
      answers.push(`${res.status} ${rl.limit}:${rl.remaining}`);
    }
    expect(answers).toEqual([`200 ${LIMIT}:4`, `200 ${LIMIT}:3`, `200 ${LIMIT}:2`, `200 ${LIMIT}:1`, `200 ${LIMIT}:0`]);
    const spent = await c.http.get(path).set(bearer(first.token));
    expect(spent.status).toBe(429);
    expect(spent.body.message).not.toContain('team');

    // A token minted now has its whole own budget, but only the team's last request: the team's binds.
    const second = await makeToken(c, owner);
    const last = await c.http.get(path).set(bearer(second.token));
    expect(last.status).toBe(200);
    expect(rateLimit(last)).toMatchObject({ limit: TEAM_LIMIT, remaining: 0 });
    expect(last.headers['ratelimit-policy']).toBe(`${TEAM_LIMIT};w=60`);
    const refused = await c.http.get(path).set(bearer(second.token));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: 'rate_limited',
      message: expect.stringContaining('team'),
      retry_after: Number(refused.headers['retry-after']),
    });

    // Another team's tokens have their own.
    const other = await makeTeam(c, { plan: 'pro' });
    const theirs = await c.http.post('/v1/forms').set(bearer(other.token)).send({ name: 'Theirs' });
    const ok = await c.http.get(`/v1/forms/${theirs.body.data.id}/submissions`).set(bearer(other.token));
    expect(ok.status).toBe(200);
    expect(rateLimit(ok).remaining).toBe(LIMIT - 1);
  });
});
