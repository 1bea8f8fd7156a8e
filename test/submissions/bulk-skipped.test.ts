import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { makePublishedForm, submissionsOf } from '../support/forms.ts';
import { bearer, makeTeam, type TestMember } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';
import { call, errorOf } from '../support/mcp-tools.ts';

// The spec: `skipped` lists the ids the caller may not act on. Any id that is not a submission of this
// form — malformed, too long, another team's, already deleted — is skipped; only the list's own limits
// (more than 500 → 413, not an array → 400) refuse the whole call. REST and the MCP tool alike.
const t = await startLiveTestApp();
const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.close();
});

async function mcp(token: string): Promise<Client> {
  const client = new Client({ name: 'bulk-skipped-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { requestInit: { headers: bearer(token) } }),
  );
  clients.push(client);
  return client;
}

async function posted(endpoint: string, name: string): Promise<string> {
  const res = await t.http.post(endpoint).set('Accept', 'application/json').type('form').send(`name=${name}`);
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** The caller's form with two submissions, another form and another team's submission, and a deleted one. */
async function scene(owner: TestMember) {
  const other = await makeTeam(t);
  const form = await makePublishedForm(t, owner);
  const sibling = await makePublishedForm(t, owner);
  const foreign = await makePublishedForm(t, other);
  const mine = [await posted(form.endpoint, 'a'), await posted(form.endpoint, 'b')];
  const deleted = await posted(form.endpoint, 'c');
  expect((await t.http.delete(`/v1/forms/${form.id}/submissions/${deleted}`).set(bearer(owner.token))).status).toBe(
    200,
  );
  const siblings = await posted(sibling.endpoint, 'd');
  const theirs = await posted(foreign.endpoint, 'e');
  const notIds = [
    'x'.repeat(100), // longer than 64 characters (a 400 for the whole batch before)
    `${mine[0]}${'0'.repeat(70)}`, // a real id with a long tail
    'subm_' + 'Z'.repeat(26), // the right length, not an id
    'frm_00000000000000000000000000', // another kind of id
    'not an id at all',
    '',
    ' ',
    `${mine[1]}' or '1'='1`,
    '🙂'.repeat(40),
  ];
  return { form: form.id, foreignForm: foreign.id, mine, skipped: [deleted, siblings, theirs, ...notIds] };
}

describe('bulk actions skip what is not a submission of the form', () => {
  for (const via of ['REST', 'MCP'] as const) {
    for (const action of ['mark_spam', 'delete'] as const) {
      it(`${action} via ${via}: malformed, too long, another form's or team's and deleted ids are skipped, the rest acted on`, async () => {
        const owner = await makeTeam(t);
        const s = await scene(owner);
        // Each skipped id once, in the order given, though sent twice.
        const ids = [s.skipped[0]!, s.mine[0]!, ...s.skipped, s.mine[1]!, s.skipped[3]!];
        let result: unknown;
        if (via === 'REST') {
          const res = await t.http
            .post(`/v1/forms/${s.form}/submissions/bulk`)
            .set(bearer(owner.token))
            .send({ ids, action });
          expect(res.status, res.text).toBe(200);
          result = res.body;
        } else {
          const answer = await call(await mcp(owner.token), 'bulk_submissions', { form: s.form, ids, action });
          expect(errorOf(answer)).toBeNull();
          result = answer.structuredContent;
        }
        expect(result).toEqual({ ok: true, affected: 2, skipped: s.skipped });
        const left = await submissionsOf(t, s.form);
        if (action === 'delete') expect(left).toEqual([]);
        else expect(left.map((r) => r.status)).toEqual(['spam', 'spam']);
        // Nothing of the other team changed.
        expect((await submissionsOf(t, s.foreignForm)).map((r) => r.status)).toEqual(['received']);
      });
    }

    it(`via ${via}: a batch of nothing but ids that are not the form's answers 200 and changes nothing; only the list's own limits refuse it`, async () => {
      const owner = await makeTeam(t);
      const s = await scene(owner);
      const body = { ids: s.skipped, action: 'mark_not_spam' };
      let result: unknown;
      if (via === 'REST') {
        const res = await t.http.post(`/v1/forms/${s.form}/submissions/bulk`).set(bearer(owner.token)).send(body);
        expect(res.status, res.text).toBe(200);
        result = res.body;
      } else {
        const answer = await call(await mcp(owner.token), 'bulk_submissions', { form: s.form, ...body });
        expect(errorOf(answer)).toBeNull();
        result = answer.structuredContent;
      }
      expect(result).toEqual({ ok: true, affected: 0, skipped: s.skipped });
      expect((await submissionsOf(t, s.form)).map((r) => r.status)).toEqual(['received', 'received']);

      // The list's own limits stay: more than 500 ids is 413, not an array is 400; nothing changes.
      const tooMany = [s.mine[0]!, ...Array.from({ length: 500 }, (_, i) => `x${i}`.repeat(40))];
      const cases: Array<[unknown, string]> = [
        [tooMany, 'payload_too_large'],
        [s.mine[0], 'validation_failed'],
        [{ 0: s.mine[0] }, 'validation_failed'],
      ];
      for (const [ids, error] of cases) {
        if (via === 'REST') {
          const res = await t.http
            .post(`/v1/forms/${s.form}/submissions/bulk`)
            .set(bearer(owner.token))
            .send({ ids, action: 'delete' });
          expect(res.status, res.text).toBe(error === 'payload_too_large' ? 413 : 400);
          expect(res.body.error).toBe(error);
        } else {
          const answer = await call(await mcp(owner.token), 'bulk_submissions', {
            form: s.form,
            ids,
            action: 'delete',
          });
          expect(errorOf(answer)?.error).toBe(error);
        }
      }
      expect(await submissionsOf(t, s.form)).toHaveLength(2);
    });
  }
});
