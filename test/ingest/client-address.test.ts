import { describe, expect, it } from 'vitest';
import { makePublishedForm, submissionsOf } from '../support/forms.ts';
import { makeTeam, startTestApp } from '../support/harness.ts';

const post = (app: Awaited<ReturnType<typeof startTestApp>>, endpoint: string, forwardedFor: string, n: number) =>
  app.http
    .post(endpoint)
    .set('Accept', 'application/json')
    .set('X-Forwarded-For', forwardedFor)
    .type('form')
    .send(`n=${n}`);

describe('whose address a post comes from', () => {
  it('by default no proxy is trusted: X-Forwarded-For neither dodges the limits nor forges metadata.ip', async () => {
    const app = await startTestApp({ INTAKE_INGEST_RATE_LIMIT: '1', INTAKE_INGEST_FLOOD_LIMIT: '2' });
    const owner = await makeTeam(app);
    const form = await makePublishedForm(app, owner);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(app, form.endpoint, `203.0.113.${i}`, i)).status);
    expect(statuses).toEqual([201, 201, 429]);
    const stored = await submissionsOf(app, form.id);
    expect(stored.map((s) => s.metadata.ip)).toEqual(['127.0.0.1', '127.0.0.1']);
    expect(stored.map((s) => s.spam_reason)).toEqual([null, 'rate_limited']);
  });

  it('INTAKE_TRUST_PROXY=loopback: the forwarded address counts, and IPv6 is limited per /64', async () => {
    const app = await startTestApp({
      INTAKE_TRUST_PROXY: 'loopback',
      INTAKE_INGEST_RATE_LIMIT: '100',
      INTAKE_INGEST_FLOOD_LIMIT: '2',
    });
    const owner = await makeTeam(app);
    const form = await makePublishedForm(app, owner);
    // Three addresses of one /64 share one budget; a neighbouring /64 has its own.
    const same = ['2001:db8:0:1::1', '2001:db8:0:1::2', '2001:db8:0:1:ffff::3'];
    const statuses = [];
    for (const [i, ip] of same.entries()) statuses.push((await post(app, form.endpoint, ip, i)).status);
    expect(statuses).toEqual([201, 201, 429]);
    expect((await post(app, form.endpoint, '2001:db8:0:2::1', 9)).status).toBe(201);
    expect((await post(app, form.endpoint, '198.51.100.7', 10)).status).toBe(201);
    const stored = await submissionsOf(app, form.id);
    expect(stored.map((s) => s.metadata.ip)).toEqual([
      '2001:db8:0:1::1',
      '2001:db8:0:1::2',
      '2001:db8:0:2::1',
      '198.51.100.7',
    ]);
  });
});
