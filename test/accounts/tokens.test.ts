import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ABILITIES, type Ability } from '../../contract/abilities.ts';
import { issueToken } from '../../server/domain/accounts/tokens.ts';
import { addMember } from '../../server/domain/accounts/users.ts';
import { bearer, makeMember, makeTeam, makeToken, startTestApp, type TestApp } from '../support/harness.ts';

const t = await startTestApp();

const PLAINTEXT = /^intk_[0-9A-Za-z]{40}$/;

async function sql<T = Record<string, unknown>>(app: TestApp, text: string, params: unknown[] = []): Promise<T[]> {
  return (await app.ctx.db.query<T & object>(text, params)).rows;
}

/** The row as Postgres holds it; `xmin` changes on every write, even one that stores the same value. */
async function tokenRow(id: string) {
  const { rows } = await t.ctx.db.query<{
    last_used_at: string | null;
    revoked_at: string | null;
    xmin: string;
    token_hash: string;
  }>('select last_used_at::text, revoked_at::text, xmin::text, token_hash from api_tokens where id = $1', [id]);
  return rows[0] ?? null;
}

async function countTokens(teamId: string): Promise<number> {
  const [row] = await sql<{ n: string }>(t, 'select count(*) as n from api_tokens where team_id = $1', [teamId]);
  return Number(row!.n);
}

function expectErrorBody(body: Record<string, unknown>, error: string) {
  expect(body.error).toBe(error);
  expect(typeof body.message).toBe('string');
  expect((body.message as string).length).toBeGreaterThan(0);
}

describe('GET /v1/tokens', () => {
  it("lists only the caller's family (same user, same team) with last_used_at", async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const unused = await makeToken(t, owner, ['forms:read']);
    // Another member of the same team, and the same user in another team: neither is the family.
    const colleague = await makeMember(t, owner.teamId, 'admin');
    const otherTeam = await makeTeam(t, { plan: 'pro' });
    const [ownerRow] = await sql<{ email: string }>(t, 'select email from users where id = $1', [owner.userId]);
    const { user } = await addMember(t.ctx, {
      email: ownerRow!.email,
      name: 'Same person',
      teamId: otherTeam.teamId,
      role: 'owner',
    });
    expect(user.id).toBe(owner.userId);
    const sameUserElsewhere = await issueToken(t.ctx, {
      teamId: otherTeam.teamId,
      userId: owner.userId,
      name: 'elsewhere',
    });

    const res = await t.http.get('/v1/tokens').set(bearer(owner.token));
    expect(res.status).toBe(200);
    const ids = (res.body.data as { id: string }[]).map((d) => d.id);
    expect(ids.sort()).toEqual([owner.tokenId, unused.tokenId].sort());
    expect(ids).not.toContain(colleague.tokenId);
    expect(ids).not.toContain(sameUserElsewhere.data.id);

    for (const entry of res.body.data as Record<string, unknown>[]) {
      expect(Object.keys(entry).sort()).toEqual([
        'abilities',
        'created_at',
        'expires_at',
        'id',
        'last4',
        'last_used_at',
        'name',
      ]);
    }
    const calling = res.body.data.find((d: { id: string }) => d.id === owner.tokenId);
    const idle = res.body.data.find((d: { id: string }) => d.id === unused.tokenId);
    // The call itself used the token, so it has been stamped; the other one never was.
    expect(calling.last_used_at).toEqual(expect.any(String));
    expect(Math.abs(Date.parse(calling.last_used_at) - Date.now())).toBeLessThan(60_000);
    expect(idle.last_used_at).toBeNull();
    expect(idle).toMatchObject({ abilities: ['forms:read'], last4: unused.token.slice(-4) });
    // Neither plaintext nor hash is ever part of metadata.
    expect(res.text).not.toContain(owner.token);
    expect(res.text).not.toContain(unused.token);
    expect(res.text).not.toContain((await tokenRow(owner.tokenId))!.token_hash);
  });

  it('lists a colleague only their own tokens', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const colleague = await makeMember(t, owner.teamId, 'editor');
    const res = await t.http.get('/v1/tokens').set(bearer(colleague.token));
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: { id: string }) => d.id)).toEqual([colleague.tokenId]);
  });
});

describe('POST /v1/tokens', () => {
  it('returns the plaintext once, next to metadata without last_used_at, and it works at once', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const res = await t.http
      .post('/v1/tokens')
      .set(bearer(owner.token))
      .send({ name: 'deploy bot', abilities: ['forms:read', 'submissions:read'] });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'token']);
    const { data, token } = res.body as { data: Record<string, unknown>; token: string };
    expect(token).toMatch(PLAINTEXT);
    expect(Object.keys(data).sort()).toEqual(['abilities', 'created_at', 'expires_at', 'id', 'last4', 'name']);
    expect(data).not.toHaveProperty('last_used_at');
    expect(data).toMatchObject({
      name: 'deploy bot',
      abilities: ['forms:read', 'submissions:read'],
      last4: token.slice(-4),
      expires_at: null,
    });
    expect(data.id).toMatch(/^tok_[0-9a-z]{26}$/);
    expect(Math.abs(Date.parse(data.created_at as string) - Date.now())).toBeLessThan(60_000);

    // Only the SHA-256 is stored.
    const row = await tokenRow(data.id as string);
    expect(row!.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    // Read back rather than searched for: a search would hand the plaintext to Postgres's statement log.
    const rows = await sql<{ row: string }>(t, 'select t::text as row from api_tokens t where team_id = $1', [
      owner.teamId,
    ]);
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.filter((r) => r.row.includes(token))).toEqual([]);

    const me = await t.http.get('/v1/me').set(bearer(token));
    expect(me.status).toBe(200);
    expect(me.body.data.token).toEqual({
      id: data.id,
      name: 'deploy bot',
      abilities: ['forms:read', 'submissions:read'],
    });
    expect(me.body.data.user.id).toBe(owner.userId);

    // Listed afterwards, still without the plaintext.
    const list = await t.http.get('/v1/tokens').set(bearer(owner.token));
    expect(list.body.data.map((d: { id: string }) => d.id)).toContain(data.id);
    expect(list.text).not.toContain(token);
  });

  it('answers 400 for an empty abilities array and for an unknown ability, creating nothing', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const before = await countTokens(owner.teamId);

    const empty = await t.http.post('/v1/tokens').set(bearer(owner.token)).send({ name: 'x', abilities: [] });
    expect(empty.status).toBe(400);
    expectErrorBody(empty.body, 'validation_failed');
    expect(empty.body.details).toEqual([
      expect.objectContaining({ in: 'body', path: 'abilities', message: expect.any(String) }),
    ]);

    const unknown = await t.http
      .post('/v1/tokens')
      .set(bearer(owner.token))
      .send({ name: 'x', abilities: ['forms:read', 'forms:delete'] });
    expect(unknown.status).toBe(400);
    expectErrorBody(unknown.body, 'validation_failed');
    expect(unknown.body.details).toHaveLength(1);
    expect(unknown.body.details[0]).toMatchObject({ in: 'body', path: 'abilities' });
    expect(unknown.body.details[0].message).toContain('forms:delete');

    const missing = await t.http.post('/v1/tokens').set(bearer(owner.token)).send({ name: 'x' });
    expect(missing.status).toBe(400);
    expectErrorBody(missing.body, 'validation_failed');
    expect(missing.body.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ in: 'body', path: 'abilities' })]),
    );

    const blank = await t.http
      .post('/v1/tokens')
      .set(bearer(owner.token))
      .send({ name: '   ', abilities: ['forms:read'] });
    expect(blank.status).toBe(400);
    expectErrorBody(blank.body, 'validation_failed');
    expect(blank.body.details).toEqual([expect.objectContaining({ in: 'body', path: 'name' })]);

    expect(await countTokens(owner.teamId)).toBe(before);
  });

  it('answers 402 on the free plan', async () => {
    const owner = await makeTeam(t, { plan: 'free' });
    const before = await countTokens(owner.teamId);
    const res = await t.http
      .post('/v1/tokens')
      .set(bearer(owner.token))
      .send({ name: 'x', abilities: ['forms:read'] });
    expect(res.status).toBe(402);
    expectErrorBody(res.body, 'payment_required');
    expect(await countTokens(owner.teamId)).toBe(before);
  });

  it('answers 403 ability_exceeds_caller with the exceeded abilities when the calling token lacks them', async () => {
    const owner = await makeTeam(t, { plan: 'team' });
    const narrow = await makeToken(t, owner, ['tokens:write', 'forms:read']);
    const before = await countTokens(owner.teamId);
    const res = await t.http
      .post('/v1/tokens')
      .set(bearer(narrow.token))
      .send({ name: 'wider', abilities: ['forms:read', 'webhooks:write', 'billing:read'] });
    expect(res.status).toBe(403);
    expectErrorBody(res.body, 'ability_exceeds_caller');
    expect([...res.body.exceeded].sort()).toEqual(['billing:read', 'webhooks:write']);
    expect(await countTokens(owner.teamId)).toBe(before);

    // Asking for a subset of what it holds is fine.
    const ok = await t.http
      .post('/v1/tokens')
      .set(bearer(narrow.token))
      .send({ name: 'subset', abilities: ['forms:read'] });
    expect(ok.status).toBe(201);
  });

  it("answers 403 when the caller's role does not permit an ability (viewer asking forms:write)", async () => {
    const owner = await makeTeam(t, { plan: 'team' });
    const viewer = await makeMember(t, owner.teamId, 'viewer');
    const before = await countTokens(owner.teamId);
    const res = await t.http
      .post('/v1/tokens')
      .set(bearer(viewer.token))
      .send({ name: 'x', abilities: ['forms:write'] });
    expect(res.status).toBe(403);
    // The viewer's token cannot hold forms:write, so the spec's named body applies.
    expectErrorBody(res.body, 'ability_exceeds_caller');
    expect(res.body.exceeded).toEqual(['forms:write']);
    expect(res.body.message).toContain('viewer');

    // A viewer may mint within the viewer ceiling.
    const ok = await t.http
      .post('/v1/tokens')
      .set(bearer(viewer.token))
      .send({ name: 'ro', abilities: ['forms:read', 'insights:read'] });
    expect(ok.status).toBe(201);
    expect(await countTokens(owner.teamId)).toBe(before + 1);
  });

  it('caps a demoted member at the new role: their old token loses what the role no longer permits', async () => {
    const owner = await makeTeam(t, { plan: 'team' });
    const admin = await makeMember(t, owner.teamId, 'admin');
    const [row] = await sql<{ email: string }>(t, 'select email from users where id = $1', [admin.userId]);
    await addMember(t.ctx, { email: row!.email, name: 'Demoted', teamId: owner.teamId, role: 'viewer' });

    const me = await t.http.get('/v1/me').set(bearer(admin.token));
    expect(me.status).toBe(200);
    expect(me.body.data.role).toBe('viewer');
    expect(me.body.data.token.abilities).not.toContain('forms:write');

    const res = await t.http
      .post('/v1/tokens')
      .set(bearer(admin.token))
      .send({ name: 'x', abilities: ['forms:read', 'forms:write'] });
    expect(res.status).toBe(403);
    expectErrorBody(res.body, 'ability_exceeds_caller');
    expect(res.body.exceeded).toEqual(['forms:write']);
  });

  it('grants every ability an owner token holds', async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const res = await t.http
      .post('/v1/tokens')
      .set(bearer(owner.token))
      .send({ name: 'all', abilities: [...ABILITIES] });
    expect(res.status).toBe(201);
    expect([...res.body.data.abilities].sort()).toEqual([...ABILITIES].sort());
  });
});

describe('DELETE /v1/tokens/:token', () => {
  it('revokes a token of the family; it fails with 401 on the very next call, on any process', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const victim = await makeToken(t, owner, ['forms:read']);
    // A second app instance on the same database has already seen the token: nothing may be cached.
    const other = await startTestApp();
    expect((await other.http.get('/v1/me').set(bearer(victim.token))).status).toBe(200);
    expect((await t.http.get('/v1/me').set(bearer(victim.token))).status).toBe(200);

    const res = await t.http.delete(`/v1/tokens/${victim.tokenId}`).set(bearer(owner.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });

    const after = await t.http.get('/v1/me').set(bearer(victim.token));
    expect(after.status).toBe(401);
    expectErrorBody(after.body, 'unauthenticated');
    expect((await other.http.get('/v1/me').set(bearer(victim.token))).status).toBe(401);
    expect((await tokenRow(victim.tokenId))!.revoked_at).not.toBeNull();

    const list = await t.http.get('/v1/tokens').set(bearer(owner.token));
    expect(list.body.data.map((d: { id: string }) => d.id)).not.toContain(victim.tokenId);
    // Revoking it again: it is gone.
    expect((await t.http.delete(`/v1/tokens/${victim.tokenId}`).set(bearer(owner.token))).status).toBe(404);
  });

  it('answers 403 cannot_revoke_active_token for the token used for the request', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const res = await t.http.delete(`/v1/tokens/${owner.tokenId}`).set(bearer(owner.token));
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('cannot_revoke_active_token');
    expect((await t.http.get('/v1/me').set(bearer(owner.token))).status).toBe(200);
    expect((await tokenRow(owner.tokenId))!.revoked_at).toBeNull();
  });

  it("answers 403 for another member's token in the same team and leaves it working", async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const colleague = await makeMember(t, owner.teamId, 'editor');
    const res = await t.http.delete(`/v1/tokens/${colleague.tokenId}`).set(bearer(owner.token));
    expect(res.status).toBe(403);
    expectErrorBody(res.body, 'forbidden');
    expect((await t.http.get('/v1/me').set(bearer(colleague.token))).status).toBe(200);
  });

  it("answers 404 for another team's token (even the same user's) and for an unknown id", async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const stranger = await makeTeam(t, { plan: 'pro' });
    const res = await t.http.delete(`/v1/tokens/${stranger.tokenId}`).set(bearer(owner.token));
    expect(res.status).toBe(404);
    expectErrorBody(res.body, 'not_found');
    expect((await t.http.get('/v1/me').set(bearer(stranger.token))).status).toBe(200);

    const [ownerRow] = await sql<{ email: string }>(t, 'select email from users where id = $1', [owner.userId]);
    await addMember(t.ctx, { email: ownerRow!.email, name: 'Same person', teamId: stranger.teamId, role: 'owner' });
    const mine = await issueToken(t.ctx, { teamId: stranger.teamId, userId: owner.userId, name: 'elsewhere' });
    expect((await t.http.delete(`/v1/tokens/${mine.data.id}`).set(bearer(owner.token))).status).toBe(404);
    expect((await t.http.get('/v1/me').set(bearer(mine.token))).status).toBe(200);

    expect((await t.http.delete('/v1/tokens/tok_01jzzzzzzzzzzzzzzzzzzzzzzz').set(bearer(owner.token))).status).toBe(
      404,
    );
  });

  it('needs tokens:write', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const readOnly = await makeToken(t, owner, ['tokens:read']);
    const victim = await makeToken(t, owner, ['forms:read']);
    const res = await t.http.delete(`/v1/tokens/${victim.tokenId}`).set(bearer(readOnly.token));
    expect(res.status).toBe(403);
    expect((await t.http.get('/v1/me').set(bearer(victim.token))).status).toBe(200);
  });
});

describe('expires_at', () => {
  const inHours = (h: number) => new Date(Date.now() + h * 3_600_000);

  it('is accepted on create (any zone, stored as the instant), returned in create and list, null when absent', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const at = inHours(48);
    at.setUTCMilliseconds(250);
    // The same instant written at +02:00: the API answers it in UTC.
    const local = new Date(at.getTime() + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
    const res = await t.http
      .post('/v1/tokens')
      .set(bearer(owner.token))
      .send({ name: 'short-lived', abilities: ['forms:read'], expires_at: local });
    expect(res.status).toBe(201);
    expect(res.body.data.expires_at).toBe(at.toISOString());
    expect((await t.http.get('/v1/me').set(bearer(res.body.token))).status).toBe(200);

    const without = await t.http
      .post('/v1/tokens')
      .set(bearer(owner.token))
      .send({ name: 'forever', abilities: ['forms:read'] });
    expect(without.status).toBe(201);
    expect(without.body.data.expires_at).toBeNull();
    const explicitNull = await t.http
      .post('/v1/tokens')
      .set(bearer(owner.token))
      .send({ name: 'forever too', abilities: ['forms:read'], expires_at: null });
    expect(explicitNull.status).toBe(201);
    expect(explicitNull.body.data.expires_at).toBeNull();

    const list = await t.http.get('/v1/tokens').set(bearer(owner.token));
    const byId = new Map(
      (list.body.data as { id: string; expires_at: string | null }[]).map((d) => [d.id, d.expires_at]),
    );
    expect(byId.get(res.body.data.id)).toBe(at.toISOString());
    expect(byId.get(without.body.data.id)).toBeNull();
    expect(byId.get(owner.tokenId)).toBeNull();

    // A date without a zone is UTC midnight.
    const day = inHours(24 * 30)
      .toISOString()
      .slice(0, 10);
    const dated = await t.http
      .post('/v1/tokens')
      .set(bearer(owner.token))
      .send({ name: 'dated', abilities: ['forms:read'], expires_at: day });
    expect(dated.status).toBe(201);
    expect(dated.body.data.expires_at).toBe(`${day}T00:00:00.000Z`);
  });

  it('a token past its expiry is 401, with the same body as a revoked token, on every process; it stays listed', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const res = await t.http
      .post('/v1/tokens')
      .set(bearer(owner.token))
      .send({ name: 'expiring', abilities: ['forms:read'], expires_at: inHours(1).toISOString() });
    expect(res.status).toBe(201);
    const { token, data } = res.body as { token: string; data: { id: string } };
    const other = await startTestApp();
    expect((await t.http.get('/v1/forms').set(bearer(token))).status).toBe(200);
    expect((await other.http.get('/v1/me').set(bearer(token))).status).toBe(200);

    await sql(t, "update api_tokens set expires_at = now() - interval '1 second' where id = $1", [data.id]);
    const expired = await t.http.get('/v1/me').set(bearer(token));
    expect(expired.status).toBe(401);
    expect((await t.http.get('/v1/forms').set(bearer(token))).status).toBe(401);
    expect((await other.http.get('/v1/me').set(bearer(token))).status).toBe(401);

    const revoked = await makeToken(t, owner, ['forms:read']);
    expect((await t.http.delete(`/v1/tokens/${revoked.tokenId}`).set(bearer(owner.token))).status).toBe(200);
    const refused = await t.http.get('/v1/me').set(bearer(revoked.token));
    expect(refused.status).toBe(401);
    expect(expired.body).toEqual(refused.body);
    expectErrorBody(expired.body, 'unauthenticated');
    expect(expired.headers['www-authenticate']).toBe(refused.headers['www-authenticate']);

    // Still the owner's, still listed (its expires_at says it is over), still revocable.
    const list = await t.http.get('/v1/tokens').set(bearer(owner.token));
    const entry = list.body.data.find((d: { id: string }) => d.id === data.id);
    expect(Date.parse(entry.expires_at)).toBeLessThan(Date.now());
    expect((await t.http.delete(`/v1/tokens/${data.id}`).set(bearer(owner.token))).status).toBe(200);
  });

  it('stops working when its time comes, with no other write', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const at = new Date(Date.now() + 1_500);
    const res = await t.http
      .post('/v1/tokens')
      .set(bearer(owner.token))
      .send({ name: 'blink', abilities: ['forms:read'], expires_at: at.toISOString() });
    expect(res.status).toBe(201);
    expect((await t.http.get('/v1/me').set(bearer(res.body.token))).status).toBe(200);
    await new Promise((r) => setTimeout(r, Math.max(0, at.getTime() - Date.now()) + 250));
    expect((await t.http.get('/v1/me').set(bearer(res.body.token))).status).toBe(401);
  });

  it('answers 400 validation_failed for a past, malformed or too distant expiry, creating nothing', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const before = await countTokens(owner.teamId);
    const tooFar = new Date();
    tooFar.setUTCFullYear(tooFar.getUTCFullYear() + 10);
    tooFar.setUTCDate(tooFar.getUTCDate() + 2);
    const refused: unknown[] = [
      new Date(Date.now() - 60_000).toISOString(), // past
      '2001-01-01', // long past
      'tomorrow',
      '2030-02-30T00:00:00Z', // no such day
      '2030-01-01T25:00:00Z',
      '',
      1_900_000_000,
      tooFar.toISOString(),
    ];
    for (const expires_at of refused) {
      const res = await t.http
        .post('/v1/tokens')
        .set(bearer(owner.token))
        .send({ name: 'x', abilities: ['forms:read'], expires_at });
      expect(res.status, JSON.stringify(expires_at)).toBe(400);
      expectErrorBody(res.body, 'validation_failed');
      expect(res.body.details, JSON.stringify(expires_at)).toEqual([
        expect.objectContaining({ in: 'body', path: 'expires_at', message: expect.any(String) }),
      ]);
    }
    expect(await countTokens(owner.teamId)).toBe(before);

    // Just inside the ten years is fine.
    const latest = new Date();
    latest.setUTCFullYear(latest.getUTCFullYear() + 10);
    latest.setUTCDate(latest.getUTCDate() - 1);
    const ok = await t.http
      .post('/v1/tokens')
      .set(bearer(owner.token))
      .send({ name: 'long', abilities: ['forms:read'], expires_at: latest.toISOString() });
    expect(ok.status).toBe(201);
  });
});

describe('last_used_at', () => {
  it('is written at most once a minute per token', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const fresh = await makeToken(t, owner, ['forms:read']);
    expect((await tokenRow(fresh.tokenId))!.last_used_at).toBeNull();

    expect((await t.http.get('/v1/me').set(bearer(fresh.token))).status).toBe(200);
    const first = (await tokenRow(fresh.tokenId))!;
    expect(first.last_used_at).not.toBeNull();

    // Two quick calls: no write at all (xmin would move even for an identical value).
    expect((await t.http.get('/v1/me').set(bearer(fresh.token))).status).toBe(200);
    expect((await t.http.get('/v1/me').set(bearer(fresh.token))).status).toBe(200);
    const second = (await tokenRow(fresh.tokenId))!;
    expect(second.last_used_at).toBe(first.last_used_at);
    expect(second.xmin).toBe(first.xmin);

    // Once the stamp is over a minute old, the next call writes it again.
    await sql(t, "update api_tokens set last_used_at = now() - interval '61 seconds' where id = $1", [fresh.tokenId]);
    const aged = (await tokenRow(fresh.tokenId))!;
    expect((await t.http.get('/v1/me').set(bearer(fresh.token))).status).toBe(200);
    const third = (await tokenRow(fresh.tokenId))!;
    expect(Date.parse(third.last_used_at!)).toBeGreaterThan(Date.parse(aged.last_used_at!) + 60_000);

    // A stamp under a minute old is left alone.
    await sql(t, "update api_tokens set last_used_at = now() - interval '50 seconds' where id = $1", [fresh.tokenId]);
    const recent = (await tokenRow(fresh.tokenId))!;
    expect((await t.http.get('/v1/me').set(bearer(fresh.token))).status).toBe(200);
    expect((await tokenRow(fresh.tokenId))!.xmin).toBe(recent.xmin);
  });

  it('concurrent first calls write the stamp once', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const fresh = await makeToken(t, owner, ['forms:read']);
    const results = await Promise.all(Array.from({ length: 8 }, () => t.http.get('/v1/me').set(bearer(fresh.token))));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const stamped = (await tokenRow(fresh.tokenId))!;
    expect(stamped.last_used_at).not.toBeNull();
    expect((await t.http.get('/v1/me').set(bearer(fresh.token))).status).toBe(200);
    expect((await tokenRow(fresh.tokenId))!.xmin).toBe(stamped.xmin);
  });
});

// Keep the ability list honest: the test above relies on owner tokens holding everything.
it('an owner token holds every ability', async () => {
  const owner = await makeTeam(t, { plan: 'pro' });
  const me = await t.http.get('/v1/me').set(bearer(owner.token));
  expect([...(me.body.data.token.abilities as Ability[])].sort()).toEqual([...ABILITIES].sort());
});
