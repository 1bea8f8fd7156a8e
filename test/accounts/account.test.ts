import { describe, expect, it } from 'vitest';
import { bearer, makeTeam, makeToken, startTestApp } from '../support/harness.ts';

const t = await startTestApp();

describe('GET /v1/me', () => {
  it('returns the user, team, role and the calling token', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const res = await t.http.get('/v1/me').set(bearer(owner.token));
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.body.data.team).toMatchObject({ id: owner.teamId, plan: 'pro' });
    expect(res.body.data.user.id).toBe(owner.userId);
    expect(res.body.data.role).toBe('owner');
    expect(res.body.data.token.id).toBe(owner.tokenId);
    expect(res.body.data.token.abilities).toContain('billing:read');
  });

  it('needs only a valid token, whatever its abilities', async () => {
    const owner = await makeTeam(t);
    const narrow = await makeToken(t, owner, ['forms:read']);
    const res = await t.http.get('/v1/me').set(bearer(narrow.token));
    expect(res.status).toBe(200);
    expect(res.body.data.token).toMatchObject({ id: narrow.tokenId, abilities: ['forms:read'] });
  });

  it('answers 401 without a token or with a bad one', async () => {
    expect((await t.http.get('/v1/me')).status).toBe(401);
    const bad = await t.http.get('/v1/me').set(bearer('intk_' + 'x'.repeat(40)));
    expect(bad.status).toBe(401);
    expect(bad.body.error).toBe('unauthenticated');
  });
});
