import { describe, expect, it } from 'vitest';
import { objectShape, unwrapSchema } from '../../contract/schema-shape.ts';
import { numberStreamEvents } from '../../server/infra/db/queries/stream-heads.ts';
import { makeTeam } from '../support/harness.ts';
import {
  insertDelivery,
  insertForm,
  insertSubmission,
  insertWebhook,
  recordFactories,
} from '../support/team-records.ts';
import {
  type Entry,
  callTool,
  expectError,
  expectNotRefused,
  expectToolError,
  mcpClient,
  rest,
  routes,
  t,
} from '../support/authorization.ts';

/** The authorization matrix's id fields (see test/support/authorization.ts): every id a query or body accepts, pointed at another team's (or another form's) record. */

// ---------------------------------------------------------------------------------------------------
// Ids inside queries and bodies

const ID_PREFIX = /`([a-z]+)_…`/;

/** Query and body fields that carry record ids: named `ids` / `…_id(s)`, or described as an id (`frm_…`). */
function idFields(entry: Entry): string[] {
  const parts: Array<['query' | 'body', unknown]> = [
    ['query', entry.route.query],
    ['body', 'body' in entry.route ? entry.route.body : undefined],
  ];
  return parts.flatMap(([part, schema]) =>
    Object.entries(objectShape(schema))
      .filter(
        ([name, field]) =>
          name === 'ids' ||
          /_ids?$/.test(name) ||
          ID_PREFIX.test(field.description ?? unwrapSchema(field).description ?? ''),
      )
      .map(([name]) => `${entry.key}.${part}.${name}`),
  );
}

/** One case per id field of the contract; the test below fails when a field appears that has none. */
const idFieldCases: Record<string, () => Promise<void>> = {
  'bulkSubmissions.body.ids': async () => {
    for (const action of ['delete', 'mark_spam', 'mark_not_spam'] as const) {
      for (const via of ['REST', 'MCP'] as const) {
        const before = action === 'mark_not_spam' ? 'spam' : 'received';
        const owner = await makeTeam(t, { plan: 'scale' });
        const other = await makeTeam(t, { plan: 'scale' });
        const form = await insertForm(t, owner.teamId);
        const mine = await insertSubmission(t, owner.teamId, form, before);
        const otherForm = await insertSubmission(t, owner.teamId, await insertForm(t, owner.teamId), before);
        const otherTeamForm = await insertForm(t, other.teamId);
        const otherTeam = await insertSubmission(t, other.teamId, otherTeamForm, before);
        const unknown = 'subm_00000000000000000000000000';
        const body = { ids: [mine, otherForm, otherTeam, unknown], action };
        const label = `bulk ${action} via ${via}`;

        let result: Record<string, unknown>;
        if (via === 'REST') {
          const res = await rest('POST', `/v1/forms/${form}/submissions/bulk`, { token: owner.token, body });
          expect(res.status, `${label}: ${res.text}`).toBe(200);
          result = res.body!;
        } else {
          const client = await mcpClient(owner.token);
          const answer = await callTool(client, 'bulk_submissions', { form, ...body });
          await client.close();
          expect(answer.ok, `${label}: ${JSON.stringify(answer)}`).toBe(true);
          result = JSON.parse(answer.ok ? answer.text.split('\n').pop()! : '{}') as Record<string, unknown>;
        }
        // The spec: `skipped` lists the ids the caller may not act on (another team's, another form's, unknown).
        expect(result, label).toMatchObject({ ok: true, affected: 1 });
        expect([...(result.skipped as string[])].sort(), label).toEqual([otherForm, otherTeam, unknown].sort());

        const { rows } = await t.ctx.db.query<{ id: string; status: string }>(
          'select id, status from submissions where id = any($1)',
          [[mine, otherForm, otherTeam]],
        );
        const status = Object.fromEntries(rows.map((r) => [r.id, r.status]));
        expect(status[otherForm], `${label}: another form's submission untouched`).toBe(before);
        expect(status[otherTeam], `${label}: another team's submission untouched`).toBe(before);
        expect(status[mine], `${label}: the form's own submission acted on`).toBe(
          action === 'delete' ? undefined : action === 'mark_spam' ? 'spam' : 'received',
        );

        // Only foreign ids: nothing happens, all are skipped.
        const foreign = { ids: [otherTeam], action };
        const res = await rest('POST', `/v1/forms/${form}/submissions/bulk`, { token: owner.token, body: foreign });
        expect(res.status, res.text).toBe(200);
        expect(res.body, `${label} only another team's ids`).toEqual({ ok: true, affected: 0, skipped: [otherTeam] });
        const after = await t.ctx.db.query<{ status: string }>('select status from submissions where id = $1', [
          otherTeam,
        ]);
        expect(after.rows[0]?.status, label).toBe(before);
      }
    }
  },

  'getAiInsights.query.form': async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const other = await makeTeam(t, { plan: 'scale' });
    const theirs = await insertForm(t, other.teamId);
    expectError(
      await rest('GET', '/v1/ai-insights', { token: owner.token, query: { form: theirs } }),
      404,
      'not_found',
      "insights of another team's form",
    );
    const client = await mcpClient(owner.token);
    try {
      expectToolError(
        await callTool(client, 'get_ai_insights', { form: theirs }),
        'not_found',
        "MCP insights of another team's form",
      );
    } finally {
      await client.close();
    }
    // Control: our own form answers.
    const ours = await insertForm(t, owner.teamId);
    expectNotRefused(
      await rest('GET', '/v1/ai-insights', { token: owner.token, query: { form: ours } }),
      'insights of our form',
    );
  },

  // An event id names its form (and a position in time): another team's cannot resume our stream into theirs.
  'streamSubmissions.query.last_event_id': async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const other = await makeTeam(t, { plan: 'scale' });
    const theirForm = await insertForm(t, other.teamId);
    const poll = await rest('GET', `/v1/forms/${theirForm}/submissions/stream`, { token: other.token });
    expect(poll.status, poll.text).toBe(200);
    const theirEventId = (poll.body!.meta as { last_event_id: string }).last_event_id;
    // Processed after the id was handed out: an event (processing marks it so, in its transaction).
    const event = await insertSubmission(t, other.teamId, theirForm, 'processed');
    await numberStreamEvents(t.ctx.db, other.teamId, theirForm, [event]);

    const ourForm = await insertForm(t, owner.teamId);
    const path = `/v1/forms/${ourForm}/submissions/stream`;
    const viaQuery = await rest('GET', path, { token: owner.token, query: { last_event_id: theirEventId } });
    expectError(viaQuery, 400, 'validation_failed', "another team's event id on our form");
    expectError(
      await rest('GET', `/v1/forms/${theirForm}/submissions/stream`, {
        token: owner.token,
        query: { last_event_id: theirEventId },
      }),
      404,
      'not_found',
      "another team's form with its event id",
    );
    // Control: the id resumes their own stream, and the submission after it is there.
    const theirs = await rest('GET', `/v1/forms/${theirForm}/submissions/stream`, {
      token: other.token,
      query: { last_event_id: theirEventId },
    });
    expect(theirs.status, theirs.text).toBe(200);
    expect((theirs.body!.data as unknown[]).length, 'their own resume finds their submission').toBe(1);
  },

  'updateSubmission.body.assignee_id': async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const other = await makeTeam(t, { plan: 'scale' });
    const form = await insertForm(t, owner.teamId);
    const mine = await insertSubmission(t, owner.teamId, form);
    const path = `/v1/forms/${form}/submissions/${mine}`;
    const res = await rest('PUT', path, { token: owner.token, body: { assignee_id: other.userId } });
    expect(res.status, res.text).toBe(400);
    expect(res.body?.error).toBe('validation_failed');
    const after = await rest('GET', path, { token: owner.token });
    expect((after.body!.data as { assignee: unknown }).assignee, "another team's user is not assigned").toBeNull();
  },

  'listSubmissions.query.assignee': async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const other = await makeTeam(t, { plan: 'scale' });
    const form = await insertForm(t, owner.teamId);
    await insertSubmission(t, owner.teamId, form);
    const theirForm = await insertForm(t, other.teamId);
    const theirs = await insertSubmission(t, other.teamId, theirForm);
    await t.ctx.db.query('update submissions set assignee_id = $2 where id = $1', [theirs, other.userId]);
    const res = await rest('GET', `/v1/forms/${form}/submissions`, {
      token: owner.token,
      query: { assignee: other.userId },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body?.data, "a list filtered by another team's user").toEqual([]);
    expect(res.text).not.toContain(theirs);
  },

  'bulkSubmissions.body.assignee_id': async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const other = await makeTeam(t, { plan: 'scale' });
    const form = await insertForm(t, owner.teamId);
    const mine = await insertSubmission(t, owner.teamId, form);
    const res = await rest('POST', `/v1/forms/${form}/submissions/bulk`, {
      token: owner.token,
      body: { ids: [mine], action: 'assign', assignee_id: other.userId },
    });
    expect(res.status, res.text).toBe(400);
    const after = await rest('GET', `/v1/forms/${form}/submissions/${mine}`, { token: owner.token });
    expect((after.body!.data as { assignee: unknown }).assignee, "another team's user is not assigned").toBeNull();
  },

  'orderRules.body.ids': async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const other = await makeTeam(t, { plan: 'scale' });
    const form = await insertForm(t, owner.teamId);
    const ours = await recordFactories.rule(t, owner, { form });
    const theirs = await recordFactories.rule(t, other, {});
    const path = `/v1/forms/${form}/rules/order`;
    expectError(
      await rest('PUT', path, { token: owner.token, body: { ids: [theirs, ours] } }),
      400,
      'validation_failed',
      "another team's rule in an order",
    );
    const { rows } = await t.ctx.db.query<{ form_id: string; position: number }>(
      'select form_id, position from form_rules where id = $1',
      [theirs],
    );
    expect(rows[0], "another team's rule untouched").toMatchObject({ position: 1 });
    expect(rows[0]!.form_id).not.toBe(form);
    expectNotRefused(await rest('PUT', path, { token: owner.token, body: { ids: [ours] } }), 'our own order');
  },

  'testRules.body.submission_id': async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const other = await makeTeam(t, { plan: 'scale' });
    const form = await insertForm(t, owner.teamId);
    const theirs = await insertSubmission(t, other.teamId, await insertForm(t, other.teamId));
    const otherForm = await insertSubmission(t, owner.teamId, await insertForm(t, owner.teamId));
    const path = `/v1/forms/${form}/rules/test`;
    for (const [id, label] of [
      [theirs, "another team's submission"],
      [otherForm, "another form's submission"],
    ] as const) {
      const res = await rest('POST', path, { token: owner.token, body: { submission_id: id } });
      expectError(res, 404, 'not_found', `dry run on ${label}`);
      expect(res.text).not.toContain('payload');
    }
    const mine = await insertSubmission(t, owner.teamId, form);
    expectNotRefused(
      await rest('POST', path, { token: owner.token, body: { submission_id: mine } }),
      'dry run on our submission',
    );
  },

  'previewWebhook.body.submission_id': async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const other = await makeTeam(t, { plan: 'scale' });
    const form = await insertForm(t, owner.teamId);
    const webhook = await insertWebhook(t, owner.teamId, form);
    const theirs = await insertSubmission(t, other.teamId, await insertForm(t, other.teamId));
    const otherForm = await insertSubmission(t, owner.teamId, await insertForm(t, owner.teamId));
    const path = `/v1/forms/${form}/webhooks/${webhook}/preview`;
    for (const [id, label] of [
      [theirs, "another team's submission"],
      [otherForm, "another form's submission"],
    ] as const) {
      const res = await rest('POST', path, { token: owner.token, body: { submission_id: id } });
      expectError(res, 404, 'not_found', `preview of ${label}`);
      expect(res.text).not.toContain('payload');
    }
    const mine = await insertSubmission(t, owner.teamId, form);
    expectNotRefused(
      await rest('POST', path, { token: owner.token, body: { submission_id: mine } }),
      'preview of our submission',
    );
  },

  'listDeliveries.query.submission_id': async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const other = await makeTeam(t, { plan: 'scale' });
    const form = await insertForm(t, owner.teamId);
    const webhook = await insertWebhook(t, owner.teamId, form);
    await insertDelivery(t, owner.teamId, webhook);
    // Another team's delivery and its submission: filtering our webhook by it finds nothing of theirs.
    const theirDelivery = await insertDelivery(
      t,
      other.teamId,
      await insertWebhook(t, other.teamId, await insertForm(t, other.teamId)),
    );
    const { rows } = await t.ctx.db.query<{ submission_id: string }>(
      'select submission_id from deliveries where id = $1',
      [theirDelivery],
    );
    const theirSubmission = rows[0]!.submission_id;
    const path = `/v1/forms/${form}/webhooks/${webhook}/deliveries`;
    const res = await rest('GET', path, { token: owner.token, query: { submission_id: theirSubmission } });
    expect(res.status, res.text).toBe(200);
    expect(res.body?.data, "deliveries filtered by another team's submission").toEqual([]);
    const client = await mcpClient(owner.token);
    try {
      const answer = await callTool(client, 'list_deliveries', { form, webhook, submission_id: theirSubmission });
      expect(answer.ok, JSON.stringify(answer)).toBe(true);
      expect(answer.ok && answer.text, 'MCP').not.toContain(theirDelivery);
      // The answer is marked untrusted (a delivery holds submitted values): its JSON is the last line.
      expect(JSON.parse(answer.ok ? answer.text.split('\n').pop()! : '{}'), 'MCP').toMatchObject({ data: [] });
    } finally {
      await client.close();
    }
  },
};

describe('ids inside queries and bodies', () => {
  const found = routes.flatMap(idFields);

  it('every id field of the contract has a case here', () => {
    expect(found.length).toBeGreaterThan(0);
    expect(
      found.sort(),
      'add a case for each new id field to idFieldCases in test/accounts/authorization-ids.test.ts',
    ).toEqual(Object.keys(idFieldCases).sort());
  });

  it.each(found.filter((f) => idFieldCases[f]))(
    "%s: another team's (or another form's) record is not found or not touched",
    async (field) => {
      await idFieldCases[field]!();
    },
  );
});
