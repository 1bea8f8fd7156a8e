import { describe, expect, it } from 'vitest';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeMember, makeTeam, startTestApp, type TestMember } from '../support/harness.ts';

// Rules as the API keeps them: created, ordered, changed and deleted; every refusal a 400 naming the field
// that changes nothing; the dry run's trace.
const t = await startTestApp({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' });

const rules = (formId: string) => `/v1/forms/${formId}/rules`;
const SALES = { field: 'department', op: 'equals', value: 'Sales' };

async function setup() {
  const owner = await makeTeam(t, { plan: 'scale' });
  const form = await makePublishedForm(t, owner);
  return { owner, formId: form.id };
}

async function create(m: TestMember, formId: string, body: Record<string, unknown>) {
  const res = await t.http.post(rules(formId)).set(bearer(m.token)).send(body);
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string; position: number; name: string };
}

async function names(m: TestMember, formId: string): Promise<string[]> {
  const res = await t.http.get(rules(formId)).set(bearer(m.token));
  expect(res.status, res.text).toBe(200);
  return (res.body.data as Array<{ name: string; position: number }>).map((r) => `${r.position}:${r.name}`);
}

const tag = (t: string) => [{ type: 'tag', add: [t] }];

describe('rules: create, order, change, delete', () => {
  it('creates with defaults, inserts at a position, orders, changes and deletes', async () => {
    const { owner, formId } = await setup();
    const a = await create(owner, formId, { name: 'A', actions: tag('a') });
    expect(a).toMatchObject({
      name: 'A',
      enabled: true,
      position: 1,
      on: 'submission.created',
      when: { all: [] },
      stop: false,
      fallback: false,
    });
    expect(a.id).toMatch(/^rule_/);
    const b = await create(owner, formId, { name: 'B', actions: tag('b'), when: { any: [SALES] } });
    const c = await create(owner, formId, { name: 'C', actions: tag('c'), position: 1 });
    expect(await names(owner, formId)).toEqual(['1:C', '2:A', '3:B']);

    const ordered = await t.http
      .put(`${rules(formId)}/order`)
      .set(bearer(owner.token))
      .send({ ids: [a.id, b.id, c.id] });
    expect(ordered.status, ordered.text).toBe(200);
    expect(await names(owner, formId)).toEqual(['1:A', '2:B', '3:C']);

    const changed = await t.http
      .put(`${rules(formId)}/${b.id}`)
      .set(bearer(owner.token))
      .send({ name: 'B2', stop: true });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data).toMatchObject({ name: 'B2', stop: true, when: { any: [SALES] }, position: 2 });

    const got = await t.http.get(`${rules(formId)}/${b.id}`).set(bearer(owner.token));
    expect(got.body.data.name).toBe('B2');

    expect((await t.http.delete(`${rules(formId)}/${a.id}`).set(bearer(owner.token))).status).toBe(200);
    expect(await names(owner, formId)).toEqual(['1:B2', '2:C']);
    expect((await t.http.get(`${rules(formId)}/${a.id}`).set(bearer(owner.token))).status).toBe(404);
  });

  it('refuses bad input with a 400 naming the field, and stores nothing', async () => {
    const { owner, formId } = await setup();
    const other = await makePublishedForm(t, owner);
    const hook = await t.http
      .post(`/v1/forms/${other.id}/webhooks`)
      .set(bearer(owner.token))
      .send({ label: 'Other', url: 'https://127.0.0.1:9/hook' });
    expect(hook.status, hook.text).toBe(201);
    const outsider = await makeTeam(t);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'x', actions: tag('a'), when: { all: [{ field: 'a', op: 'resembles', value: 'b' }] } }, 'when'],
      [{ name: 'x', actions: tag('a'), when: { all: [{ field: 'a', op: 'matches', value: '(unclosed' }] } }, 'when'],
      [{ name: 'x', actions: [{ type: 'webhook', webhook_id: hook.body.data.id }] }, 'actions.0.webhook_id'],
      [{ name: 'x', actions: [{ type: 'stage', to: 'nowhere' }] }, 'actions.0.to'],
      [{ name: 'x', actions: [{ type: 'assign', user_id: outsider.userId }] }, 'actions.0.user_id'],
      [{ name: 'x', actions: [{ type: 'notify', to: ['a@example.com'], subject: '{% if x %}' }] }, 'actions.0.subject'],
      [
        { name: 'x', actions: [{ type: 'notify', to: ['a@example.com'], subject: '{{ a | shout }}' }] },
        'actions.0.subject',
      ],
      [{ name: 'x', actions: [] }, 'actions'],
      [{ name: '', actions: tag('a') }, 'name'],
    ];
    for (const [body, path] of cases) {
      const res = await t.http.post(rules(formId)).set(bearer(owner.token)).send(body);
      expect(res.status, `${JSON.stringify(body)} → ${res.text}`).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      const paths = (res.body.details as Array<{ path: string }>).map((d) => d.path);
      expect(
        paths.some((p) => p.startsWith(path)),
        `${paths.join()} names ${path}`,
      ).toBe(true);
    }
    expect(await names(owner, formId)).toEqual([]);
  });

  it('holds at most 50 rules per form, and an order must name every rule once', async () => {
    const { owner, formId } = await setup();
    for (let i = 0; i < 50; i++) await create(owner, formId, { name: `R${i}`, actions: tag('x') });
    const over = await t.http
      .post(rules(formId))
      .set(bearer(owner.token))
      .send({ name: 'R50', actions: tag('x') });
    expect(over.status).toBe(400);
    expect(over.body.error).toBe('validation_failed');
    const list = (await t.http.get(rules(formId)).set(bearer(owner.token))).body.data as Array<{ id: string }>;
    expect(list).toHaveLength(50);
    const partial = await t.http
      .put(`${rules(formId)}/order`)
      .set(bearer(owner.token))
      .send({ ids: list.slice(1).map((r) => r.id) });
    expect(partial.status).toBe(400);
    expect(partial.body.details[0].path).toBe('ids');
    const twice = await t.http
      .put(`${rules(formId)}/order`)
      .set(bearer(owner.token))
      .send({ ids: [list[0]!.id, ...list.slice(0, 49).map((r) => r.id)] });
    expect(twice.status).toBe(400);
  });

  it('needs forms:write to change rules; a viewer reads them', async () => {
    const { owner, formId } = await setup();
    await create(owner, formId, { name: 'A', actions: tag('a') });
    const viewer = await makeMember(t, owner.teamId, 'viewer');
    expect((await t.http.get(rules(formId)).set(bearer(viewer.token))).status).toBe(200);
    const res = await t.http
      .post(rules(formId))
      .set(bearer(viewer.token))
      .send({ name: 'B', actions: tag('b') });
    expect(res.status).toBe(403);
  });
});

describe('rules: the dry run', () => {
  it('answers what fires and why, in order, with stop and fallback, and changes nothing', async () => {
    const { owner, formId } = await setup();
    const sales = await create(owner, formId, { name: 'Sales', when: { all: [SALES] }, actions: tag('sales') });
    const big = await create(owner, formId, {
      name: 'Big budget',
      when: { all: [{ field: 'budget', op: 'gte', value: 10000 }] },
      actions: tag('big'),
      stop: true,
    });
    const after = await create(owner, formId, { name: 'After stop', actions: tag('after') });
    const fallback = await create(owner, formId, { name: 'Fallback', actions: tag('other'), fallback: true });

    const run = async (payload: Record<string, unknown>) => {
      const res = await t.http
        .post(`${rules(formId)}/test`)
        .set(bearer(owner.token))
        .send({ payload });
      expect(res.status, res.text).toBe(200);
      return res.body.data;
    };
    const both = await run({ department: 'SALES', budget: '25000' });
    expect(both.fired).toEqual([sales.id, big.id]);
    expect(both.actions).toEqual([
      { rule_id: sales.id, action: { type: 'tag', add: ['sales'] } },
      { rule_id: big.id, action: { type: 'tag', add: ['big'] } },
    ]);
    type Traced = { rule_id: string; fired: boolean; skipped: string | null; conditions: unknown[] };
    const traced = Object.fromEntries((both.trace as Traced[]).map((r) => [r.rule_id, r]));
    expect(traced[sales.id]!.conditions).toEqual([
      { field: 'department', op: 'equals', value: 'Sales', actual: 'SALES', holds: true },
    ]);
    expect(traced[after.id]).toMatchObject({ fired: false, skipped: 'stopped' });
    expect(traced[fallback.id]).toMatchObject({ fired: false, skipped: 'stopped' });

    // Nothing holds but the unconditional rule, which fires: the fallback does not.
    const plain = await run({ department: 'Support', budget: 'unknown' });
    expect(plain.fired).toEqual([after.id]);

    // Unsaved rules in place of the saved ones; the fallback fires when nothing else did.
    const drafts = await t.http
      .post(`${rules(formId)}/test`)
      .set(bearer(owner.token))
      .send({
        payload: { email: 'a@competitor.example' },
        rules: [
          {
            name: 'Competitor',
            when: { all: [{ field: 'email', op: 'ends_with', value: '@competitor.example' }] },
            actions: tag('competitor'),
            enabled: false,
          },
          { name: 'Else', actions: [{ type: 'skip_autoresponder' }], fallback: true },
        ],
      });
    expect(drafts.status, drafts.text).toBe(200);
    expect(drafts.body.data.fired).toEqual(['draft_2']);
    expect(drafts.body.data.trace[0]).toMatchObject({
      rule_id: 'draft_1',
      holds: true,
      fired: false,
      skipped: 'disabled',
    });
    expect(await names(owner, formId)).toEqual(['1:Sales', '2:Big budget', '3:After stop', '4:Fallback']);
  });

  it('refuses both or neither of submission_id and payload, and an unknown submission is 404', async () => {
    const { owner, formId } = await setup();
    const neither = await t.http
      .post(`${rules(formId)}/test`)
      .set(bearer(owner.token))
      .send({});
    expect(neither.status).toBe(400);
    const both = await t.http
      .post(`${rules(formId)}/test`)
      .set(bearer(owner.token))
      .send({ payload: {}, submission_id: 'subm_01hzzzzzzzzzzzzzzzzzzzzzzz' });
    expect(both.status).toBe(400);
    const unknown = await t.http
      .post(`${rules(formId)}/test`)
      .set(bearer(owner.token))
      .send({ submission_id: 'subm_01hzzzzzzzzzzzzzzzzzzzzzzz' });
    expect(unknown.status).toBe(404);
  });
});
