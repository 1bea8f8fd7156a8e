import { describe, expect, it } from 'vitest';
import { Condition, CONDITION_LIMITS, CONDITION_OPS, type ConditionOp } from '../../contract/conditions.ts';
import { WebhookFilterCondition } from '../../contract/webhooks.ts';
import { matchesFilter } from '../../server/domain/delivery/filters.ts';
import {
  compileConditions,
  conditionSubject,
  evaluate,
  matches,
  traceConditions,
  type ConditionSubject,
  type StoredCondition,
} from '../../server/domain/rules/conditions.ts';
import { bearer } from '../support/harness.ts';
import { hookedForms } from '../support/hooked-forms.ts';
import { postForm, startProcessingApp, waitForProcessing } from '../support/processing.ts';
import { workerProcesses } from '../support/worker-process.ts';

const SUBJECT: ConditionSubject = {
  payload: {
    name: 'Ada Lovelace',
    email: 'Ada@Example.COM',
    topic: 'Sales',
    message: 'A quote for twenty units, please.',
    interests: ['Pricing', 'Support'],
    budget: 1200,
    seats: ' 25 ',
    code: '0x10',
    blank: '   ',
    empty: '',
    nothing: null,
    none: [],
    agreed: true,
    address: { city: 'London' },
    ÉTÉ: 'Été',
  },
  category: 'sales',
  ai_score: 0.82,
  spam_reason: null,
  referrer: 'https://www.example.com/contact?utm=x',
  source: 'form',
  status: 'processed',
};

function holds(field: string, op: ConditionOp, value?: unknown, subject: ConditionSubject = SUBJECT): boolean {
  const condition: StoredCondition = value === undefined ? { field, op } : { field, op, value };
  return evaluate(compileConditions([condition]), subject);
}

describe('conditions: text ops', () => {
  it('compare case-insensitively', () => {
    expect(holds('topic', 'equals', 'SALES')).toBe(true);
    expect(holds('topic', 'equals', 'sale')).toBe(false);
    expect(holds('topic', 'not_equals', 'sales')).toBe(false);
    expect(holds('topic', 'not_equals', 'support')).toBe(true);
    expect(holds('message', 'contains', 'TWENTY UNITS')).toBe(true);
    expect(holds('message', 'not_contains', 'quote')).toBe(false);
    expect(holds('message', 'not_contains', 'refund')).toBe(true);
    expect(holds('email', 'starts_with', 'ada@')).toBe(true);
    expect(holds('email', 'starts_with', 'example')).toBe(false);
    expect(holds('email', 'ends_with', '@example.com')).toBe(true);
    expect(holds('email', 'ends_with', '@example.org')).toBe(false);
    expect(holds('ÉTÉ', 'equals', 'été')).toBe(true);
  });

  it('in / not_in: the field equals one of the list (case-insensitive), or none', () => {
    expect(holds('topic', 'in', ['support', 'SALES'])).toBe(true);
    expect(holds('topic', 'in', ['support', 'billing'])).toBe(false);
    expect(holds('topic', 'not_in', ['support', 'billing'])).toBe(true);
    expect(holds('topic', 'not_in', ['sales'])).toBe(false);
  });

  it('compare numbers, booleans and objects as their text', () => {
    expect(holds('budget', 'equals', '1200')).toBe(true);
    expect(holds('agreed', 'equals', 'TRUE')).toBe(true);
    expect(holds('address', 'contains', '"city":"london"')).toBe(true);
  });

  it('on a list: a positive op holds when any item does, a negative one when none does', () => {
    expect(holds('interests', 'equals', 'support')).toBe(true);
    expect(holds('interests', 'not_equals', 'support')).toBe(false);
    expect(holds('interests', 'not_equals', 'billing')).toBe(true);
    expect(holds('interests', 'contains', 'pric')).toBe(true);
    expect(holds('interests', 'not_contains', 'pric')).toBe(false);
    expect(holds('interests', 'starts_with', 'sup')).toBe(true);
    expect(holds('interests', 'ends_with', 'ING')).toBe(true);
    expect(holds('interests', 'in', ['billing', 'pricing'])).toBe(true);
    expect(holds('interests', 'not_in', ['billing', 'pricing'])).toBe(false);
    expect(holds('interests', 'not_in', ['billing'])).toBe(true);
    expect(holds('interests', 'matches', '^sup+ort$')).toBe(true);
  });

  it('on a missing field: positive ops do not hold, negative ones do', () => {
    for (const op of ['equals', 'contains', 'starts_with', 'ends_with', 'matches'] as const)
      expect(holds('phone', op, 'x'), op).toBe(false);
    expect(holds('phone', 'in', ['x'])).toBe(false);
    for (const op of ['not_equals', 'not_contains'] as const) expect(holds('phone', op, 'x'), op).toBe(true);
    expect(holds('phone', 'not_in', ['x'])).toBe(true);
    expect(holds('nothing', 'equals', 'null')).toBe(false);
    // A payload never reaches Object.prototype.
    expect(holds('constructor', 'exists')).toBe(false);
    expect(holds('toString', 'contains', 'function')).toBe(false);
  });
});

describe('conditions: numbers', () => {
  it('compare numbers and strings that are numbers once trimmed, against a number or a numeric string', () => {
    expect(holds('budget', 'gt', 1000)).toBe(true);
    expect(holds('budget', 'gt', 1200)).toBe(false);
    expect(holds('budget', 'gte', 1200)).toBe(true);
    expect(holds('budget', 'lt', '1200.5')).toBe(true);
    expect(holds('budget', 'lte', ' 1199 ')).toBe(false);
    expect(holds('seats', 'gte', 25)).toBe(true);
    expect(holds('seats', 'lt', 25)).toBe(false);
    expect(holds('seats', 'lt', 1e3)).toBe(true);
    // Numbers compare as numbers, not as text ("1200" < "25" as text).
    expect(holds('budget', 'gt', '25')).toBe(true);
  });

  it('do not hold on what is not a number: text, hex, blank, booleans, a missing field', () => {
    expect(holds('topic', 'gt', 0)).toBe(false);
    expect(holds('topic', 'lt', 0)).toBe(false);
    expect(holds('code', 'gt', 1)).toBe(false);
    expect(holds('blank', 'lt', 1)).toBe(false);
    expect(holds('empty', 'lte', 0)).toBe(false);
    expect(holds('agreed', 'gte', 0)).toBe(false);
    expect(holds('phone', 'gte', 0)).toBe(false);
  });

  it('on a list: any item that is a number', () => {
    const subject = { ...SUBJECT, payload: { quantities: ['n/a', '3', 12] } };
    expect(holds('quantities', 'gt', 10, subject)).toBe(true);
    expect(holds('quantities', 'lt', 5, subject)).toBe(true);
    expect(holds('quantities', 'gt', 12, subject)).toBe(false);
  });
});

describe('conditions: exists, @fields, legacy names', () => {
  it('exists: present and not empty or blank; not_exists: the opposite', () => {
    expect(holds('email', 'exists')).toBe(true);
    expect(holds('budget', 'exists')).toBe(true);
    expect(holds('interests', 'exists')).toBe(true);
    for (const field of ['blank', 'empty', 'nothing', 'none', 'phone']) {
      expect(holds(field, 'exists'), field).toBe(false);
      expect(holds(field, 'not_exists'), field).toBe(true);
    }
    expect(holds('email', 'not_exists')).toBe(false);
    expect(holds('@score', 'exists', undefined, { ...SUBJECT, payload: { '@score': 'x' } })).toBe(true);
  });

  it("@ names read the submission's own values, not the payload", () => {
    const subject = { ...SUBJECT, payload: { ...SUBJECT.payload, '@category': 'support' } };
    expect(holds('@category', 'equals', 'Sales', subject)).toBe(true);
    expect(holds('@ai_score', 'gt', 0.8)).toBe(true);
    expect(holds('@ai_score', 'lt', '0.5')).toBe(false);
    expect(holds('@spam_reason', 'exists')).toBe(false);
    expect(holds('@spam_reason', 'equals', 'honeypot_filled', { ...SUBJECT, spam_reason: 'honeypot_filled' })).toBe(
      true,
    );
    expect(holds('@referrer', 'starts_with', 'https://www.example.com/')).toBe(true);
    expect(holds('@referrer', 'matches', '[?&]utm=')).toBe(true);
    expect(holds('@source', 'equals', 'form')).toBe(true);
    expect(holds('@source', 'in', ['api'])).toBe(false);
    expect(holds('@ai_score', 'not_exists', undefined, { ...SUBJECT, ai_score: null })).toBe(true);
  });

  it("`category` and `status` name the submission's own only in a webhook filter; elsewhere they are payload fields", () => {
    const subject = { ...SUBJECT, payload: { category: 'billing', status: 'new' } };
    const legacy = (c: StoredCondition) => evaluate(compileConditions([c], { legacyFields: true }), subject);
    expect(legacy({ field: 'category', op: 'equals', value: 'SALES' })).toBe(true);
    expect(legacy({ field: 'status', op: 'equals', value: 'processed' })).toBe(true);
    expect(holds('category', 'equals', 'billing', subject)).toBe(true);
    expect(holds('status', 'equals', 'new', subject)).toBe(true);
    // The webhook filter: the submission's category and status; @ names too.
    expect(
      matchesFilter(
        [
          { field: 'category', op: 'equals', value: 'sales' },
          { field: 'status', op: 'not_equals', value: 'spam' },
          { field: '@category', op: 'in', value: ['sales'] },
          { field: 'interests', op: 'not_equals', value: 'billing' },
          { field: 'absent', op: 'not_equals', value: 'x' },
        ],
        { payload: SUBJECT.payload, category: 'sales', status: 'processed' },
      ),
    ).toBe(true);
    expect(
      matchesFilter([{ field: 'status', op: 'equals', value: 'spam' }], {
        payload: {},
        category: null,
        status: 'processed',
      }),
    ).toBe(false);
  });

  it('a stored condition that is not valid never holds, negated or not', () => {
    const stored: StoredCondition[] = [
      { field: 'topic', op: 'like', value: 'sales' },
      { field: 'topic', op: 'not_in', value: 'sales' },
      { field: 'topic', op: 'not_equals', value: 5 },
      { field: 'topic', op: 'not_contains' },
      { field: 'budget', op: 'gt', value: 'many' },
      { field: 'topic', op: 'matches', value: '(?=x)' },
    ];
    for (const c of stored) expect(evaluate(compileConditions([c]), SUBJECT), JSON.stringify(c)).toBe(false);
  });

  it('builds the subject from a stored submission', () => {
    const row = {
      payload: { a: 1 },
      category: 'support',
      ai_moderation: { score: 0.3, verdict: 'clean' as const, reasons: [], provider: 'local' },
      spam_reason: null,
      metadata: { referrer: 'https://example.com/x' },
      api_token_id: 'tok_1',
    };
    expect(conditionSubject(row, 'processed')).toEqual({
      payload: { a: 1 },
      category: 'support',
      ai_score: 0.3,
      spam_reason: null,
      referrer: 'https://example.com/x',
      source: 'api',
      status: 'processed',
    });
    expect(conditionSubject({ ...row, ai_moderation: null, metadata: {}, api_token_id: null }, 'spam')).toMatchObject({
      ai_score: null,
      referrer: null,
      source: 'form',
      status: 'spam',
    });
  });
});

describe('conditions: matches (RE2)', () => {
  it('finds the pattern anywhere, case-insensitive', () => {
    expect(holds('email', 'matches', '@example\\.com$')).toBe(true);
    expect(holds('message', 'matches', '\\bQUOTE\\b')).toBe(true);
    expect(holds('message', 'matches', '^quote')).toBe(false);
    expect(holds('ÉTÉ', 'matches', '^été$')).toBe(true);
  });

  it('runs in linear time: (a+)+$ on 50,000 a and a ! finishes at once', () => {
    const subject = { ...SUBJECT, payload: { text: `${'a'.repeat(50_000)}!` } };
    const compiled = compileConditions([{ field: 'text', op: 'matches', value: '(a+)+$' }]);
    const started = performance.now();
    expect(evaluate(compiled, subject)).toBe(false);
    // A backtracking engine takes longer than the age of the universe here.
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('conditions: all, any, trace', () => {
  const conditions: StoredCondition[] = [
    { field: 'topic', op: 'equals', value: 'sales' },
    { field: 'budget', op: 'gt', value: 5000 },
    { field: 'phone', op: 'exists' },
  ];

  it('all: every condition; any: at least one; no conditions: always', () => {
    const compiled = compileConditions(conditions);
    expect(matches(compiled, SUBJECT, 'all')).toBe(false);
    expect(matches(compiled, SUBJECT, 'any')).toBe(true);
    expect(matches(compileConditions(conditions.slice(1)), SUBJECT, 'any')).toBe(false);
    expect(matches(compileConditions(conditions.slice(0, 1)), SUBJECT, 'all')).toBe(true);
    expect(matches([], SUBJECT, 'all')).toBe(true);
    expect(matches([], SUBJECT, 'any')).toBe(true);
  });

  it('trace: each condition with the raw value it read (null when absent) and whether it held', () => {
    const traced = traceConditions(
      compileConditions([...conditions, { field: 'interests', op: 'in', value: ['pricing'] }]),
      SUBJECT,
    );
    expect(traced).toEqual([
      { field: 'topic', op: 'equals', value: 'sales', actual: 'Sales', holds: true },
      { field: 'budget', op: 'gt', value: 5000, actual: 1200, holds: false },
      { field: 'phone', op: 'exists', value: null, actual: null, holds: false },
      { field: 'interests', op: 'in', value: ['pricing'], actual: ['Pricing', 'Support'], holds: true },
    ]);
  });

  it('a compiled set serves many subjects', () => {
    const compiled = compileConditions([{ field: 'topic', op: 'in', value: ['sales', 'support'] }]);
    const topics = ['Sales', 'SUPPORT', 'billing', 'sales '];
    expect(topics.map((topic) => evaluate(compiled, { ...SUBJECT, payload: { topic } }))).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});

describe('the Condition schema', () => {
  const issues = (input: unknown) => {
    const r = Condition.safeParse(input);
    return r.success ? [] : r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
  };

  it('accepts every op with the value it takes', () => {
    const ok: unknown[] = [
      { field: 'topic', op: 'equals', value: 'Sales' },
      { field: 'topic', op: 'not_equals', value: '' },
      { field: 'message', op: 'contains', value: 'x' },
      { field: 'message', op: 'not_contains', value: 'x' },
      { field: 'email', op: 'starts_with', value: 'a' },
      { field: 'email', op: 'ends_with', value: '.com' },
      { field: 'topic', op: 'in', value: ['a'] },
      { field: 'topic', op: 'not_in', value: Array.from({ length: CONDITION_LIMITS.list }, (_, i) => `t${i}`) },
      { field: 'budget', op: 'gt', value: 10 },
      { field: 'budget', op: 'gte', value: '10.5' },
      { field: 'budget', op: 'lt', value: -1 },
      { field: 'budget', op: 'lte', value: ' 2e3 ' },
      { field: 'email', op: 'exists' },
      { field: 'email', op: 'not_exists' },
      { field: 'email', op: 'matches', value: 'x'.repeat(CONDITION_LIMITS.pattern) },
      { field: '@category', op: 'equals', value: 'sales' },
      { field: '@ai_score', op: 'gte', value: 0.5 },
      { field: '@spam_reason', op: 'exists' },
      { field: '@referrer', op: 'contains', value: 'utm' },
      { field: '@source', op: 'equals', value: 'api' },
    ];
    expect(new Set(ok.map((c) => (c as { op: string }).op))).toEqual(new Set(CONDITION_OPS));
    for (const c of ok) expect(issues(c), JSON.stringify(c)).toEqual([]);
  });

  it('refuses, naming the path: an unknown op, a bad or long regex, a missing value, a value on exists, an unknown @field', () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [{ field: 'topic', op: 'like', value: 'x' }, 'op', /equals/],
      [{ field: 'topic', op: 'matches', value: '(unclosed' }, 'value', /Not an RE2 pattern \(missing closing \)/],
      [{ field: 'topic', op: 'matches', value: '(a)\\1' }, 'value', /backreferences/],
      [{ field: 'topic', op: 'matches', value: 'x'.repeat(CONDITION_LIMITS.pattern + 1) }, 'value', /at most 200/],
      [{ field: 'topic', op: 'matches', value: '[a-z]{1000}' }, 'value', /too large once compiled/],
      [{ field: 'topic', op: 'matches', value: ['x'] }, 'value', /as a string/],
      [{ field: 'topic', op: 'equals' }, 'value', /A value is required with `equals`/],
      [{ field: 'topic', op: 'in' }, 'value', /required/],
      [{ field: 'topic', op: 'exists', value: 'x' }, 'value', /`exists` takes no value/],
      [{ field: 'topic', op: 'not_exists', value: '' }, 'value', /takes no value/],
      [{ field: '@status', op: 'exists' }, 'field', /Unknown field `@status`.*@category, @ai_score/],
      [{ field: '', op: 'exists' }, 'field', /at least 1/],
      [{ field: 'topic', op: 'in', value: [] }, 'value', /list of 1 to 50/],
      [
        { field: 'topic', op: 'in', value: Array.from({ length: CONDITION_LIMITS.list + 1 }, (_, i) => `t${i}`) },
        'value',
        /list of 1 to 50/,
      ],
      [{ field: 'topic', op: 'in', value: 'sales' }, 'value', /list/],
      [{ field: 'topic', op: 'equals', value: 5 }, 'value', /must be a string/],
      [{ field: 'topic', op: 'equals', value: 'x'.repeat(CONDITION_LIMITS.value + 1) }, 'value', /at most 1000/],
      [{ field: 'budget', op: 'gt', value: 'many' }, 'value', /finite number/],
      [{ field: 'budget', op: 'gt', value: '0x10' }, 'value', /finite number/],
      [{ field: 'budget', op: 'lt', value: true }, 'value', /./],
      [{ field: 'topic', op: 'equals', value: 'a\u0000b' }, 'value', /NUL/],
    ];
    for (const [input, path, message] of cases) {
      const found = issues(input);
      expect(found.length, JSON.stringify(input)).toBeGreaterThan(0);
      expect(found[0]!.path, JSON.stringify(input)).toBe(path);
      expect(found[0]!.message, JSON.stringify(input)).toMatch(message);
    }
    expect(issues({ field: 'topic', op: 'exists', extra: 1 })[0]!.message).toMatch(/Unrecognized key/);
  });

  it("a webhook filter's condition takes the same grammar and its legacy names", () => {
    for (const c of [
      { field: 'category', op: 'equals', value: 'sales' },
      { field: 'status', op: 'equals', value: 'spam' },
      { field: '@ai_score', op: 'lt', value: 0.2 },
      { field: 'topic', op: 'starts_with', value: 'sal' },
    ])
      expect(WebhookFilterCondition.safeParse(c).success, JSON.stringify(c)).toBe(true);
    expect(WebhookFilterCondition.safeParse({ field: 'topic', op: 'matches', value: '(?<!x)y' }).success).toBe(false);
  });
});

// End to end: webhook filters on the new grammar, through the API, processing and a real `intake worker`
// delivering to a real HTTPS receiver.
const t = await startProcessingApp({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' }, { worker: false });
const worker = workerProcesses({
  databaseUrl: t.databaseUrl,
  dataDir: t.dataDir,
  env: { INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true', INTAKE_DELIVERY_SCHEDULE: '0,0.5,0.5,0.5,0.5,0.5,0.5' },
}).start();
const hookedForm = hookedForms(t);

describe('webhook filters on the condition grammar', { timeout: 90_000 }, () => {
  it('a filter with starts_with and not_in delivers only the submissions it matches', async () => {
    const h = await hookedForm(undefined, {
      filter: [
        { field: 'email', op: 'starts_with', value: 'SALES@' },
        { field: 'interests', op: 'not_in', value: ['spam', 'test'] },
      ],
    });
    const shown = await t.http.get(`/v1/forms/${h.formId}/webhooks/${h.webhookId}`).set(bearer(h.owner.token));
    expect(shown.body.data.filter).toEqual([
      { field: 'email', op: 'starts_with', value: 'SALES@' },
      { field: 'interests', op: 'not_in', value: ['spam', 'test'] },
    ]);
    const refused = await postForm(t, h.endpoint, { email: 'sales@acme.example', interests: ['pricing', 'Test'] });
    const other = await postForm(t, h.endpoint, { email: 'ada@acme.example', interests: 'pricing' });
    const wanted = await postForm(t, h.endpoint, { email: 'Sales@acme.example', interests: ['pricing', 'demo'] });
    // Deliveries are made in the transaction that marks a submission processed: once all three are, none more comes.
    // The worker may still be starting on a busy machine: the first wait is long.
    for (const id of [refused, other, wanted])
      await waitForProcessing(t, id, 40_000).catch((err: Error) => {
        throw new Error(`${err.message}\nworker output:\n${worker.output().slice(-4000)}`);
      });
    const { rows } = await t.ctx.db.query<{ submission_id: string }>(
      'select submission_id from deliveries where webhook_id = $1',
      [h.webhookId],
    );
    expect(rows.map((r) => r.submission_id)).toEqual([wanted]);
    const [req] = await h.receiver.waitFor(1).catch((err: Error) => {
      throw new Error(`${err.message}\nworker output:\n${worker.output().slice(-4000)}`);
    });
    expect(JSON.parse(req!.body)).toMatchObject({ type: 'submission.created', submission_id: wanted });
    await new Promise((r) => setTimeout(r, 500));
    expect(h.receiver.requests, worker.output().slice(-2000)).toHaveLength(1);
  });

  it('a bad regex, an unknown @field or a value on exists is a 400 validation_failed naming the field; nothing changes', async () => {
    const h = await hookedForm();
    const base = `/v1/forms/${h.formId}/webhooks`;
    const before = (await t.http.get(`${base}/${h.webhookId}`).set(bearer(h.owner.token))).body.data;
    const bad: Array<[unknown[], string]> = [
      [[{ field: 'topic', op: 'matches', value: '(?=sales)' }], 'filter.0.value'],
      [
        [
          { field: 'topic', op: 'exists' },
          { field: 'topic', op: 'matches', value: '[' },
        ],
        'filter.1.value',
      ],
      [[{ field: '@country', op: 'equals', value: 'fr' }], 'filter.0.field'],
      [[{ field: 'topic', op: 'exists', value: 'x' }], 'filter.0.value'],
      [[{ field: 'topic', op: 'fuzzy', value: 'x' }], 'filter.0.op'],
    ];
    for (const [filter, path] of bad) {
      const created = await t.http
        .post(base)
        .set(bearer(h.owner.token))
        .send({ label: 'x', url: `${h.receiver.localhostUrl}/x`, filter });
      expect(created.status, JSON.stringify(filter)).toBe(400);
      expect(created.body.error).toBe('validation_failed');
      expect(created.body.details.map((d: { path: string }) => d.path)).toEqual([path]);
      const updated = await t.http.put(`${base}/${h.webhookId}`).set(bearer(h.owner.token)).send({ filter });
      expect(updated.status, JSON.stringify(filter)).toBe(400);
      expect(updated.body.details.map((d: { path: string }) => d.path)).toEqual([path]);
    }
    expect((await t.http.get(base).set(bearer(h.owner.token))).body.data).toHaveLength(1);
    expect((await t.http.get(`${base}/${h.webhookId}`).set(bearer(h.owner.token))).body.data).toEqual(before);
  });
});
