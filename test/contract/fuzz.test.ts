import fc from 'fast-check';
import { isAppRoute, type AppRoute, type AppRouter } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { contract } from '../../contract/index.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, makeToken, startTestApp, type TestMember } from '../support/harness.ts';
import { arbitraryFor, hostileString, hostileValue } from '../support/zod-arbitrary.ts';

/**
 * Property-based fuzzing from the contract: every /v1 route and POST /f/{form} gets requests built from its
 * own schemas, mixed with hostile values. Whatever comes in, the answer is never a 5xx (response
 * validation is on, so a reply outside the contract would be one), an error carries the error body, and a
 * refused write changes nothing of the team's data.
 */
const t = await startTestApp({
  INTAKE_API_RATE_LIMIT: '1000000',
  INTAKE_API_TEAM_RATE_LIMIT: '1000000',
  INTAKE_INGEST_RATE_LIMIT: '1000000',
  INTAKE_INGEST_FLOOD_LIMIT: '1000000',
});
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);

type Fixture = { member: TestMember; ids: Record<string, string> };

/** A team with a published form, a submission with a file, and a spare token: every path id resolves. */
async function fixture(): Promise<Fixture> {
  const member = await makeTeam(t);
  const form = await makePublishedForm(t, member);
  const posted = await t.http
    .post(form.endpoint)
    .set('Accept', 'application/json')
    .field('email', 'a@example.com')
    .attach('cv', Buffer.from('pdf'), { filename: 'cv.pdf' });
  const shown = await t.http.get(`/v1/forms/${form.id}/submissions/${posted.body.id}`).set(bearer(member.token));
  const spare = await makeToken(t, member, ['forms:read']);
  return {
    member,
    ids: { form: form.id, submission: posted.body.id, file: shown.body.data.files[0].id, token: spare.tokenId },
  };
}

const other = await fixture();

/** What a refused request must not change: every row of the team's forms, submissions, fields and tokens. */
async function fingerprint(teamId: string): Promise<string> {
  const { rows } = await t.ctx.db.query<{ f: string }>(
    `select md5(coalesce((select string_agg(f::text, ',' order by f.id) from forms f where f.team_id = $1), '') ||
                coalesce((select string_agg(s.id || s.status || s.payload::text || coalesce(s.spam_reason, ''), ',' order by s.id) from submissions s where s.team_id = $1), '') ||
                coalesce((select string_agg(ff.form_id || ff.name, ',' order by ff.form_id, ff.name) from form_fields ff join forms f on f.id = ff.form_id where f.team_id = $1), '') ||
                coalesce((select string_agg(k.id || coalesce(k.revoked_at::text, ''), ',' order by k.id) from api_tokens k where k.team_id = $1), '')) as f`,
    [teamId],
  );
  return rows[0]!.f;
}

function routes(router: AppRouter, prefix = ''): Array<[string, AppRoute]> {
  return Object.entries(router).flatMap(([name, r]) =>
    isAppRoute(r) ? [[prefix + name, r] as [string, AppRoute]] : routes(r as AppRouter, `${name}.`),
  );
}

/** A query-string value as a client would write it (kept under Node's 16 KB request-line limit: past it Node answers 431 itself). */
const asQueryValue = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? '')).slice(0, 2000);

function queryString(query: unknown, raw: string): string {
  const params = new URLSearchParams();
  if (query && typeof query === 'object' && !Array.isArray(query)) {
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, asQueryValue(v));
  } else if (query !== undefined) params.append('q', asQueryValue(query));
  const text = params.toString();
  return [text, raw].filter(Boolean).join('&');
}

describe('fuzzing every /v1 route from the contract', () => {
  for (const [name, route] of routes(contract)) {
    it(
      `${route.method} ${route.path} (${name}): no 5xx, error bodies, refused writes change nothing`,
      { timeout: 120_000 },
      async () => {
        const own = await fixture();
        const paramNames = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
        const pathArb = fc.record(
          Object.fromEntries(
            // (Path strings stay under Node's 16 KB request-line limit: past it Node itself answers 431.)
            paramNames.map((p) => [
              p,
              fc.oneof(
                { arbitrary: fc.constant(own.ids[p] ?? 'x'), weight: 6 },
                fc.constant(other.ids[p] ?? 'x'),
                hostileString.filter((h) => h.length < 2000),
              ),
            ]),
          ) as Record<string, fc.Arbitrary<string>>,
        );
        const queryArb = route.query ? arbitraryFor(route.query as z.ZodTypeAny, 0.25) : fc.constant({});
        const rawQueryArb = fc.constantFrom(
          '',
          '',
          '',
          'page=%FF',
          'cursor=%ED%A0%80',
          '__proto__[x]=1',
          'per_page=1e9',
          'since=2024-02-30',
          'a[b][c][d][e][f]=1',
        );
        const hasBody =
          route.method !== 'GET' &&
          'body' in route &&
          route.body &&
          typeof (route.body as z.ZodTypeAny).safeParse === 'function';
        const bodyArb = hasBody
          ? fc.oneof({ arbitrary: arbitraryFor(route.body as z.ZodTypeAny, 0.25), weight: 4 }, hostileValue)
          : fc.constant(undefined);

        await fc.assert(
          fc.asyncProperty(pathArb, queryArb, rawQueryArb, bodyArb, async (params, query, rawQuery, body) => {
            const path = route.path.replace(/:(\w+)/g, (_, p: string) => encodeURIComponent(params[p]!.toWellFormed()));
            const qs = queryString(query, rawQuery);
            const before = route.method === 'GET' ? null : await fingerprint(own.member.teamId);
            const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
            let req = t.http[method](`${path}${qs ? `?${qs}` : ''}`).set(bearer(own.member.token));
            if (body !== undefined)
              req = req.set('Content-Type', 'application/json').send(JSON.stringify(body) ?? 'null');
            const res = await req;
            expect(
              res.status,
              `${route.method} ${path}?${qs} ${JSON.stringify(body)?.slice(0, 200)} → ${res.text.slice(0, 300)}`,
            ).toBeLessThan(500);
            if (res.status >= 400) {
              expect(res.body?.error, res.text.slice(0, 200)).toEqual(expect.any(String));
              if (before !== null) expect(await fingerprint(own.member.teamId)).toBe(before);
            }
          }),
          { numRuns: RUNS },
        );
      },
    );
  }
});

describe('fuzzing POST /f/{form}', () => {
  it('JSON and urlencoded bodies of any shape: no 5xx, error bodies', { timeout: 120_000 }, async () => {
    const own = await fixture();
    const endpoint = `/f/${own.ids.form}`;
    const jsonBody = fc.oneof(
      fc.dictionary(fc.oneof(fc.string({ maxLength: 70 }), hostileString), hostileValue, { maxKeys: 8 }),
      hostileValue,
      fc.jsonValue(),
    );
    const formBody = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc
        .array(fc.tuple(hostileString, hostileString), { maxLength: 5 })
        .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&')),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        jsonBody,
        formBody,
        fc.option(hostileString, { nil: undefined }),
        async (asJson, json, form, key) => {
          let req = t.http.post(endpoint).set('Accept', 'application/json');
          if (key !== undefined) req = req.set('Idempotency-Key', encodeURIComponent(key.toWellFormed()).slice(0, 300));
          const res = asJson
            ? await req.set('Content-Type', 'application/json').send(JSON.stringify(json) ?? 'null')
            : await req.set('Content-Type', 'application/x-www-form-urlencoded').send(form);
          expect(
            res.status,
            `${asJson ? JSON.stringify(json)?.slice(0, 200) : form.slice(0, 200)} → ${res.text.slice(0, 300)}`,
          ).toBeLessThan(500);
          if (res.status >= 400) expect(res.body?.error).toEqual(expect.any(String));
        },
      ),
      { numRuns: RUNS * 4 },
    );
  });
});
