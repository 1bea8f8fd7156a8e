import { Webhook as StandardWebhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../sdk/index.ts';
import {
  OUTPUT_MAX_BYTES,
  parseFormTemplate,
  parseJsonTemplate,
  parseTemplate,
  renderForm,
  renderJson,
  renderText,
  templateContext,
  TemplateError,
  TemplateRenderError,
  TEMPLATE_MAX_CHARS,
} from '../../server/domain/templates/templates.ts';
import { cliHome, cliProcesses, installationEnv, runCli, userEnv } from '../support/cli.ts';
import { bearer } from '../support/harness.ts';
import type { ReceivedRequest } from '../support/https-receiver.ts';
import { hookedForms, type HookedForm } from '../support/hooked-forms.ts';
import { postForm, startProcessingApp } from '../support/processing.ts';
import { serverProcessEnv } from '../support/tls.ts';
import { eventually as waitUntil, workerProcesses } from '../support/worker-process.ts';

// The API and ingest run here; deliveries go out from a real `intake worker`, and the test call from a real
// `intake serve`: those processes alone trust the receivers' self-signed certificate.
const t = await startProcessingApp({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' }, { worker: false });
const ENV = {
  INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true',
  INTAKE_DELIVERY_SCHEDULE: [0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5].join(','),
  INTAKE_DELIVERY_TIMEOUT_MS: '3000',
};
const worker = workerProcesses({ databaseUrl: t.databaseUrl, dataDir: t.dataDir, env: ENV }).start();
const hookedForm = hookedForms(t);

const eventually = <T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000) =>
  waitUntil(fn, ok, timeoutMs, () => `worker output:\n${worker.output().slice(-4000)}`);
const quiet = (ms: number) => new Promise((r) => setTimeout(r, ms));

// --- The template module -------------------------------------------------------------------------------------

const CTX = templateContext({
  payload: {
    email: 'Ada@Example.COM',
    'first name': 'Ada',
    tags: ['vip', 'sales'],
    count: 3,
    address: { city: 'London' },
    message: 'A quote for twenty units, please.',
    form: 'a payload field named form',
  },
  form: { id: 'frm_1', name: 'Contact' },
  submission: { id: 'subm_1', received_at: '2025-01-02T03:04:05.000Z', category: null, source: 'form' },
});
const text = (template: string) => renderText(parseTemplate(template), CTX);
const json = (template: unknown) => JSON.parse(renderJson(parseJsonTemplate(JSON.stringify(template)), CTX));

function parseError(fn: () => unknown): TemplateError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(TemplateError);
    return err as TemplateError;
  }
  throw new Error('expected a TemplateError');
}

describe('text templates', () => {
  it('read payload fields (bracket names too), fields.*, form.* and submission.*', () => {
    expect(text('{{ email }} / {{ ["first name"] }} / {{ fields["first name"] }} / {{ address.city }}')).toBe(
      'Ada@Example.COM / Ada / Ada / London',
    );
    expect(
      text('{{ form.id }} {{ form.name }} {{ submission.id }} {{ submission.received_at }} {{ submission.source }}'),
    ).toBe('frm_1 Contact subm_1 2025-01-02T03:04:05.000Z form');
    // `form` is the form's own; the payload field of that name stays readable under `fields`.
    expect(text('{{ form.name }} | {{ fields.form }}')).toBe('Contact | a payload field named form');
  });

  it('show a missing value as nothing, a list with ", " and an object as JSON', () => {
    expect(text('[{{ nothing }}][{{ submission.category }}]')).toBe('[][]');
    expect(text('{{ tags }}')).toBe('vip, sales');
    expect(text('{{ address }}')).toBe('{"city":"London"}');
    expect(text('{{ count }}')).toBe('3');
  });

  it('have the filters default, lower, upper, truncate, json and join', () => {
    expect(text('{{ nothing | default: "none" }} {{ email | default: "none" }}')).toBe('none Ada@Example.COM');
    expect(text('{{ email | lower }} {{ email | upper }}')).toBe('ada@example.com ADA@EXAMPLE.COM');
    expect(text('{{ message | truncate: 10 }}')).toBe('A quote...');
    expect(text('{{ tags | json }} {{ email | json }}')).toBe('["vip","sales"] "Ada@Example.COM"');
    expect(text('{{ tags | join: " + " }}')).toBe('vip + sales');
    expect(text('{{ submission.category | default: "uncategorised" | upper }}')).toBe('UNCATEGORISED');
  });

  it('refuse any tag at parse time, saying where', () => {
    const err = parseError(() => parseTemplate('Hello\n  {% if email %}x{% endif %}'));
    expect(err.message).toMatch(/Tags such as \{% if %\} are not allowed/);
    expect([err.line, err.column]).toEqual([2, 3]);
    for (const tag of [
      '{% raw %}{{ x }}{% endraw %}',
      '{% assign a = 1 %}',
      '{% include "x" %}',
      '{% liquid echo 1 %}',
    ])
      expect(parseError(() => parseTemplate(tag)).message).toMatch(/Tags such as/);
  });

  it('refuse an unknown filter at parse time, naming it and the filters there are', () => {
    for (const filter of ['upcase', 'date: "%Y"', 'nope']) {
      const err = parseError(() => parseTemplate(`x {{ email | ${filter} }}`));
      expect(err.message).toContain(`Unknown filter "${filter.split(':')[0]}"`);
      expect(err.message).toContain('default, lower, upper, truncate, json, join');
      expect([err.line, err.column]).toEqual([1, 3]);
    }
  });

  it('refuse what does not parse and a template over the length limit', () => {
    expect(parseError(() => parseTemplate('{{ email')).message).toMatch(/does not parse: .*not closed/);
    expect(parseError(() => parseTemplate('x'.repeat(TEMPLATE_MAX_CHARS + 1))).message).toMatch(/at most 10,000/);
    expect(() => parseTemplate('x'.repeat(TEMPLATE_MAX_CHARS))).not.toThrow();
  });

  it('are sandboxed: prototypes and constructors read as nothing, and nothing runs', () => {
    expect(text('[{{ constructor }}][{{ __proto__ }}][{{ email.constructor }}][{{ fields.constructor.name }}]')).toBe(
      '[][][][]',
    );
    expect(text('[{{ submission.__proto__ }}][{{ tags.constructor.constructor }}][{{ toString }}]')).toBe('[][][]');
    // A payload field named __proto__ is the field's value, and changes no prototype.
    const own = templateContext({
      payload: JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": "mine"}') as Record<string, unknown>,
      form: { id: 'f', name: 'F' },
      submission: { id: 's', received_at: '', category: null, source: 'api' },
    });
    expect(renderText(parseTemplate('{{ __proto__.polluted }} {{ constructor }}'), own)).toBe('yes mine');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(json({ a: '{{ constructor }}', b: '{{ __proto__ }}' })).toEqual({ a: null, b: null });
  });

  it('fail a render past the output cap or building too much, with a clear error', () => {
    const big = templateContext({
      payload: { m: 'x'.repeat(600_000) },
      form: { id: 'f', name: 'F' },
      submission: { id: 's', received_at: '', category: null, source: 'api' },
    });
    expect(() => renderText(parseTemplate('{{ m }}{{ m }}'), big)).toThrow(TemplateRenderError);
    expect(() => renderText(parseTemplate('{{ m }}{{ m }}'), big)).toThrow(/larger than 1 MiB/);
    expect(renderText(parseTemplate('{{ m }}'), big)).toHaveLength(600_000);
    expect(() => renderJson(parseJsonTemplate('{"a":"{{ m }}","b":["{{ m }}"]}'), big)).toThrow(/larger than 1 MiB/);
    expect(() => text('{{ (1..100000000) | join }}')).toThrow(/builds too much/);
    expect(OUTPUT_MAX_BYTES).toBe(1024 * 1024);
  });
});

describe('JSON templates', () => {
  it('keep the JSON type of a string that is exactly one placeholder; other strings render as text', () => {
    expect(
      json({
        tags: '{{ tags }}',
        count: '{{ count }}',
        fallback: '{{ nothing | default: 0 }}',
        kept: '{{ count | default: 0 }}',
        address: '{{ address }}',
        missing: '{{ nothing }}',
        line: 'n={{ count }}',
        spaced: ' {{ count }}',
        joined: '{{ tags | join: "," }}',
        literal: [true, 1, null, '{{ form.name }}'],
        '{{ keys stay literal }}': { deeper: '{{ email | lower }}' },
      }),
    ).toEqual({
      tags: ['vip', 'sales'],
      count: 3,
      fallback: 0,
      kept: 3,
      address: { city: 'London' },
      missing: null,
      line: 'n=3',
      spaced: ' 3',
      joined: 'vip,sales',
      literal: [true, 1, null, 'Contact'],
      '{{ keys stay literal }}': { deeper: 'ada@example.com' },
    });
  });

  it('write a key named __proto__ as a key', () => {
    expect(renderJson(parseJsonTemplate('{"__proto__": "{{ count }}"}'), CTX)).toBe('{"__proto__":3}');
  });

  it('refuse invalid JSON, a JSON that is no object, and a bad template inside, naming where', () => {
    expect(parseError(() => parseJsonTemplate('{"a": "{{ email }}"')).message).toMatch(/not valid JSON/);
    expect(parseError(() => parseJsonTemplate('["{{ email }}"]')).message).toMatch(/must be a JSON object/);
    expect(parseError(() => parseJsonTemplate('"{{ email }}"')).message).toMatch(/must be a JSON object/);
    const inner = parseError(() => parseJsonTemplate('{"customer": {"names": ["ok", "{% if x %}"]}}'));
    expect(inner.message).toMatch(/^At customer\.names\[1\]: Tags such as/);
    expect(parseError(() => parseJsonTemplate('{"a": "{{ x | upcase }}"}')).message).toMatch(/^At a: Unknown filter/);
  });
});

describe('form templates', () => {
  it('render each field as text, urlencoded', () => {
    const body = renderForm(
      parseFormTemplate(
        '{"email": "{{ email | lower }}", "name": "{{ [\\"first name\\"] }} & co", "tags": "{{ tags }}"}',
      ),
      CTX,
    );
    expect(body).toBe('email=ada%40example.com&name=Ada+%26+co&tags=vip%2C+sales');
    expect(Object.fromEntries(new URLSearchParams(body))).toEqual({
      email: 'ada@example.com',
      name: 'Ada & co',
      tags: 'vip, sales',
    });
  });

  it('refuse a value that is no string', () => {
    expect(parseError(() => parseFormTemplate('{"n": 1}')).message).toMatch(/^At n: each value of a form template/);
    expect(parseError(() => parseFormTemplate('{"n": {"x": "y"}}')).message).toMatch(/^At n:/);
  });
});

// --- Templated deliveries, end to end ------------------------------------------------------------------------

/** Verifies a request with the Standard Webhooks reference library, over exactly the bytes received. */
function verified(h: HookedForm, req: ReceivedRequest, jsonParse = true): unknown {
  return new StandardWebhook(h.secret).verify(req.body, req.headers, { jsonParse });
}

/** The webhook's delivery statuses, polled from the database (the API's rate limit is not for polling). */
async function statuses(h: HookedForm): Promise<string[]> {
  const { rows } = await t.ctx.db.query<{ status: string }>(
    'select status from deliveries where webhook_id = $1 order by id',
    [h.webhookId],
  );
  return rows.map((r) => r.status);
}

/** The webhook's delivery log, once `ready` holds of its statuses. */
async function settledLog(h: HookedForm, ready: (statuses: string[]) => boolean) {
  await eventually(() => statuses(h), ready);
  return logOf(h);
}

async function logOf(h: HookedForm) {
  const res = await t.http.get(`/v1/forms/${h.formId}/webhooks/${h.webhookId}/deliveries`).set(bearer(h.owner.token));
  expect(res.status, res.text).toBe(200);
  return res.body.data as Array<Record<string, unknown>>;
}

/** A JSON post to the public endpoint, as a website's script would send it. */
async function postJson(endpoint: string, body: Record<string, unknown>): Promise<string> {
  const res = await t.http.post(endpoint).set('Accept', 'application/json').send(body);
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

const CRM_TEMPLATE = JSON.stringify({
  contact: { email: '{{ email | lower }}', name: '{{ name }}' },
  seats: '{{ seats | default: 1 }}',
  interests: '{{ interests }}',
  note: 'From {{ form.name }} ({{ submission.id }})',
  source: 'intake',
});

describe('templated deliveries', { timeout: 60_000 }, () => {
  it('a JSON template: its body (types kept) and extra headers arrive, signed over the bytes sent', async () => {
    const h = await hookedForm(undefined, {
      body_template: CRM_TEMPLATE,
      headers: { Authorization: 'Bearer crm-token', 'X-Crm-Team': 'sales' },
    });
    const id = await postJson(h.endpoint, {
      name: 'Ada Lovelace',
      email: 'Ada@Example.com',
      seats: 20,
      interests: ['engines', 'poetry'],
    });
    const [req] = await h.receiver.waitFor(1);
    const expected = {
      contact: { email: 'ada@example.com', name: 'Ada Lovelace' },
      seats: 20,
      interests: ['engines', 'poetry'],
      note: `From Contact (${id})`,
      source: 'intake',
    };
    expect(req!.body).toBe(JSON.stringify(expected));
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers.authorization).toBe('Bearer crm-token');
    expect(req!.headers['x-crm-team']).toBe('sales');
    expect(verified(h, req!)).toEqual(expected);
    // Not the body of another submission, nor any change of one byte.
    expect(() => new StandardWebhook(h.secret).verify(`${req!.body} `, req!.headers)).toThrow(WebhookVerificationError);

    const [logged] = await settledLog(h, (s) => s[0] === 'succeeded');
    expect(logged).toMatchObject({ request_body: expected, content_type: 'application/json', submission_id: id });
  });

  it('a form template is sent urlencoded, and a replay resends the same bytes and type, signed anew', async () => {
    const h = await hookedForm(undefined, {
      content_type: 'form',
      body_template: JSON.stringify({ email: '{{ email }}', name: '{{ name | upper }}', form: '{{ form.name }}' }),
    });
    await postForm(t, h.endpoint, { name: 'Grace Hopper', email: 'grace@example.com' });
    const [req] = await h.receiver.waitFor(1);
    const body = 'email=grace%40example.com&name=GRACE+HOPPER&form=Contact';
    expect(req!.body).toBe(body);
    expect(req!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(verified(h, req!, false)).toBeUndefined();
    const [logged] = await settledLog(h, (s) => s[0] === 'succeeded');
    expect(logged).toMatchObject({ request_body: body, content_type: 'application/x-www-form-urlencoded' });

    // The template changes; the replay still sends what the delivery stored.
    const changed = await t.http
      .put(`/v1/forms/${h.formId}/webhooks/${h.webhookId}`)
      .set(bearer(h.owner.token))
      .send({ content_type: 'text', body_template: 'changed' });
    expect(changed.status, changed.text).toBe(200);
    const replay = await t.http
      .post(`/v1/forms/${h.formId}/webhooks/${h.webhookId}/deliveries/${logged!.id as string}/replay`)
      .set(bearer(h.owner.token));
    expect(replay.status, replay.text).toBe(200);
    const [, again] = await h.receiver.waitFor(2);
    expect(again!.body).toBe(body);
    expect(again!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(again!.headers['webhook-id']).toBe(replay.body.delivery_id);
    expect(verified(h, again!, false)).toBeUndefined();
  });

  it('a text template is sent as text/plain, for submission.updated as for submission.created', async () => {
    const h = await hookedForm(undefined, {
      content_type: 'text',
      events: ['submission.created', 'submission.updated'],
      body_template:
        '{{ submission.event }} on {{ form.name }}: {{ name }} <{{ email | lower }}> [{{ submission.tags }}]',
    });
    const id = await postForm(t, h.endpoint, { name: 'Ada', email: 'ADA@example.com' });
    const [created] = await h.receiver.waitFor(1);
    expect(created!.body).toBe('submission.created on Contact: Ada <ada@example.com> []');
    expect(created!.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(verified(h, created!, false)).toBeUndefined();

    const tagged = await t.http
      .put(`/v1/forms/${h.formId}/submissions/${id}`)
      .set(bearer(h.owner.token))
      .send({ add_tags: ['vip', 'urgent'] });
    expect(tagged.status, tagged.text).toBe(200);
    const [, updated] = await h.receiver.waitFor(2);
    expect(updated!.body).toBe('submission.updated on Contact: Ada <ada@example.com> [vip, urgent]');
    expect(verified(h, updated!, false)).toBeUndefined();
  });

  it('a body too large to render makes a dead delivery with a clear error; nothing is sent, and it cannot be replayed', async () => {
    // A field holds at most 64 KB: twenty of it make more than 1 MiB. (Moderation may call such a post spam: both go.)
    const h = await hookedForm(undefined, {
      content_type: 'text',
      body_template: '{{ message }}'.repeat(20),
      events: ['submission.created', 'submission.spam'],
    });
    const id = await postForm(t, h.endpoint, { message: 'x'.repeat(60_000) });
    const [logged] = await settledLog(h, (s) => s.length === 1);
    expect(logged).toMatchObject({
      submission_id: id,
      status: 'dead',
      attempts: 0,
      request_body: null,
      next_attempt_at: null,
    });
    expect(logged!.error).toMatch(/^template_error: The rendered output is larger than 1 MiB/);
    const replay = await t.http
      .post(`/v1/forms/${h.formId}/webhooks/${h.webhookId}/deliveries/${logged!.id as string}/replay`)
      .set(bearer(h.owner.token));
    expect(replay.status).toBe(409);
    expect(replay.body).toMatchObject({ error: 'conflict', message: expect.stringMatching(/body template/) });
    // The next submission, small enough, is delivered: the worker went on.
    await postForm(t, h.endpoint, { message: 'short' });
    const [req] = await h.receiver.waitFor(1);
    expect(req!.body).toBe('short'.repeat(20));
    await quiet(500);
    expect(h.receiver.requests).toHaveLength(1);
  });
});

// --- The test call carries the extra headers and the default body ---------------------------------------------

const serves = cliProcesses();
let served: Promise<string> | undefined;
/** One `intake serve` (no worker) on this file's database, for the test call and the CLI. */
const serveUrl = () =>
  (served ??= serves
    .start(
      ['serve', '--no-worker'],
      installationEnv(t, { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...serverProcessEnv(), ...ENV }),
    )
    .url());

describe('the test call of a templated webhook', { timeout: 60_000 }, () => {
  it('sends the default body (marked test) with the extra headers', async () => {
    const h = await hookedForm(undefined, {
      body_template: CRM_TEMPLATE,
      headers: { Authorization: 'Bearer crm-token' },
    });
    const baseUrl = await serveUrl();
    const { data } = await createClient({ baseUrl, token: h.owner.token }).ok.testWebhook({
      params: { form: h.formId, webhook: h.webhookId },
    });
    expect(data).toMatchObject({ status: 'succeeded', content_type: 'application/json' });
    const [req] = await h.receiver.waitFor(1);
    expect(req!.headers.authorization).toBe('Bearer crm-token');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(verified(h, req!)).toMatchObject({ type: 'submission.created', test: true, form_id: h.formId });
  });
});

describe('intake webhooks preview', { timeout: 60_000 }, () => {
  it('prints the request as it would go out, or with --json the API answer', async () => {
    const h = await hookedForm(undefined, { headers: { 'X-Env': 'staging' } });
    const env = userEnv(cliHome(), { url: await serveUrl(), token: h.owner.token });
    const args = [
      'webhooks',
      'preview',
      h.webhookId,
      '--form',
      h.formId,
      '--payload',
      '{"name":"Ada","email":"ADA@example.com"}',
      '--content-type',
      'text',
      '--body-template',
      'New lead: {{ name }} <{{ email | lower }}>',
    ];
    const human = await runCli(args, env);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toBe(
      'content-type: text/plain; charset=utf-8\nX-Env: staging\n\nNew lead: Ada <ada@example.com>\n',
    );
    const json = await runCli([...args, '--json'], env);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      content_type: 'text/plain; charset=utf-8',
      headers: { 'content-type': 'text/plain; charset=utf-8', 'X-Env': 'staging' },
      body: 'New lead: Ada <ada@example.com>',
    });
    const refused = await runCli([...args.slice(0, 7), '--body-template', '{% if x %}'], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/body_template/);
  });
});

// --- Settings: what a create or an update refuses ------------------------------------------------------------

describe('a webhook’s template, content type and headers', () => {
  const url = 'https://127.0.0.1:9/hook';

  it('are shown on the webhook, and default to no template, json and no headers', async () => {
    const h = await hookedForm(undefined, { headers: { 'X-Api-Key': 'k1' } });
    const res = await t.http.get(`/v1/forms/${h.formId}/webhooks/${h.webhookId}`).set(bearer(h.owner.token));
    expect(res.body.data).toMatchObject({ body_template: null, content_type: 'json', headers: { 'X-Api-Key': 'k1' } });
    const plain = await t.http
      .post(`/v1/forms/${h.formId}/webhooks`)
      .set(bearer(h.owner.token))
      .send({ label: 'Plain', url, provider: 'zapier' });
    expect(plain.body.data).toMatchObject({ body_template: null, content_type: 'json', headers: {} });
  });

  it('refuses, naming the field, with nothing created: another provider, a template that does not parse, refused headers', async () => {
    const h = await hookedForm();
    const create = (body: Record<string, unknown>) =>
      t.http
        .post(`/v1/forms/${h.formId}/webhooks`)
        .set(bearer(h.owner.token))
        .send({ label: 'Refused', url, ...body });
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ provider: 'slack', body_template: '{"a":"b"}' }, 'body_template', /provider `webhook`/],
      [{ provider: 'discord', content_type: 'text' }, 'content_type', /provider `webhook`/],
      [{ provider: 'zapier', headers: { 'X-A': '1' } }, 'headers', /provider `webhook`/],
      [{ body_template: '{"a": "{% if x %}y{% endif %}"}' }, 'body_template', /At a: Tags such as .*line 1, column 1/],
      [{ body_template: '{"a": "{{ x | upcase }}"}' }, 'body_template', /Unknown filter "upcase"/],
      [{ body_template: 'not json {{ x }}' }, 'body_template', /not valid JSON/],
      [{ body_template: '[1]' }, 'body_template', /JSON object/],
      [{ content_type: 'form', body_template: '{"a": {"b": "c"}}' }, 'body_template', /each value of a form template/],
      [{ content_type: 'text', body_template: 'Hi {% if x %}' }, 'body_template', /Tags such as/],
      [{ body_template: 'x'.repeat(10_001) }, 'body_template', /10000|10,000/],
      [{ headers: { Host: 'evil.example' } }, 'headers.Host', /sets Host itself/],
      [{ headers: { 'content-length': '1' } }, 'headers.content-length', /itself/],
      [{ headers: { 'Content-Type': 'text/xml' } }, 'headers.Content-Type', /itself/],
      [{ headers: { 'Transfer-Encoding': 'chunked' } }, 'headers.Transfer-Encoding', /itself/],
      [{ headers: { Connection: 'close' } }, 'headers.Connection', /itself/],
      [{ headers: { 'Webhook-Signature': 'v1,forged' } }, 'headers.Webhook-Signature', /itself/],
      [{ headers: { 'webhook-id': 'x' } }, 'headers.webhook-id', /itself/],
      [{ headers: { 'X-Service-Signature': 'v1=forged' } }, 'headers.X-Service-Signature', /itself/],
      [{ headers: { 'Bad Name': 'x' } }, 'headers.Bad Name', /HTTP token/],
      [{ headers: { 'X-A': 'one\r\nX-Injected: yes' } }, 'headers.X-A', /line break/],
      [{ headers: { 'X-A': 'caf\u00e9' } }, 'headers.X-A', /visible ASCII/],
      [{ headers: { 'X-A': 'x'.repeat(1001) } }, 'headers.X-A', /1000|1,000/],
      [{ headers: { 'X-A': '1', 'x-a': '2' } }, 'headers.x-a', /twice/],
      [
        { headers: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`X-H${i}`, 'v'])) },
        'headers',
        /At most 10/,
      ],
    ];
    for (const [body, path, message] of cases) {
      const res = await create(body);
      expect(res.status, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      const detail = (res.body.details as Array<{ path: string; message: string }>).find((d) => d.path === path);
      expect(detail, `${path} in ${res.text}`).toBeDefined();
      expect(detail!.message, path).toMatch(message);
    }
    const list = await t.http.get(`/v1/forms/${h.formId}/webhooks`).set(bearer(h.owner.token));
    expect(list.body.data).toHaveLength(1);
  });

  it('an update is checked as it leaves the webhook, and a refused one changes nothing', async () => {
    const h = await hookedForm(undefined, { content_type: 'text', body_template: 'Hello {{ name }}' });
    const put = (body: Record<string, unknown>) =>
      t.http.put(`/v1/forms/${h.formId}/webhooks/${h.webhookId}`).set(bearer(h.owner.token)).send(body);
    // A text template is no JSON: turning the content type to json alone names content_type.
    const retype = await put({ content_type: 'json' });
    expect(retype.status).toBe(400);
    expect(retype.body.details).toMatchObject([
      { path: 'content_type', message: expect.stringMatching(/not valid JSON/) },
    ]);
    const reprovide = await put({ provider: 'slack' });
    expect(reprovide.status).toBe(400);
    expect(reprovide.body.details.map((d: { path: string }) => d.path)).toEqual(['body_template', 'content_type']);
    const header = await put({ label: 'Renamed', headers: { Host: 'x' } });
    expect(header.status).toBe(400);
    const same = await t.http.get(`/v1/forms/${h.formId}/webhooks/${h.webhookId}`).set(bearer(h.owner.token));
    expect(same.body.data).toMatchObject({
      label: 'Receiver',
      provider: 'webhook',
      content_type: 'text',
      body_template: 'Hello {{ name }}',
      headers: {},
    });

    const both = await put({ content_type: 'json', body_template: '{"hello": "{{ name }}"}', headers: { 'X-A': '1' } });
    expect(both.status, both.text).toBe(200);
    expect(both.body.data).toMatchObject({ content_type: 'json', headers: { 'X-A': '1' } });
    const cleared = await put({ body_template: null, headers: {} });
    expect(cleared.body.data).toMatchObject({ body_template: null, content_type: 'json', headers: {} });
    // Without a template or headers, another provider is fine.
    expect((await put({ provider: 'zapier' })).status).toBe(200);
  });
});

// --- Preview -----------------------------------------------------------------------------------------------------

describe('POST …/webhooks/{webhook}/preview', () => {
  const preview = (h: HookedForm, body: unknown) =>
    t.http
      .post(`/v1/forms/${h.formId}/webhooks/${h.webhookId}/preview`)
      .set(bearer(h.owner.token))
      .send(body as object);

  async function deliveriesCount(h: HookedForm): Promise<number> {
    const { rows } = await t.ctx.db.query<{ n: number }>(
      'select count(*)::int as n from deliveries where webhook_id = $1',
      [h.webhookId],
    );
    return rows[0]!.n;
  }

  it("renders the webhook's template for a made-up payload and for a stored submission, sending and storing nothing", async () => {
    const h = await hookedForm(undefined, { body_template: CRM_TEMPLATE, headers: { Authorization: 'Bearer x' } });
    const made = await preview(h, { payload: { name: 'Ada', email: 'ADA@x.org', seats: 3, interests: ['a'] } });
    expect(made.status, made.text).toBe(200);
    expect(made.body).toEqual({
      content_type: 'application/json',
      headers: { 'content-type': 'application/json', Authorization: 'Bearer x' },
      body: JSON.stringify({
        contact: { email: 'ada@x.org', name: 'Ada' },
        seats: 3,
        interests: ['a'],
        note: 'From Contact (subm_preview)',
        source: 'intake',
      }),
    });

    const id = await postJson(h.endpoint, { name: 'Grace', email: 'g@x.org' });
    const stored = await preview(h, { submission_id: id });
    expect(stored.status, stored.text).toBe(200);
    expect(JSON.parse(stored.body.body as string)).toEqual({
      contact: { email: 'g@x.org', name: 'Grace' },
      seats: 1,
      interests: null,
      note: `From Contact (${id})`,
      source: 'intake',
    });
    // The worker delivers the stored submission once; the previews added nothing.
    await h.receiver.waitFor(1);
    await quiet(500);
    expect(h.receiver.requests).toHaveLength(1);
    expect(await deliveriesCount(h)).toBe(1);
  });

  it('previews changes not saved yet, and the default body without a template', async () => {
    const h = await hookedForm();
    const text = await preview(h, {
      payload: { name: 'Ada' },
      content_type: 'text',
      body_template: 'Hi {{ name | upper }}',
      headers: { 'X-Env': 'staging' },
    });
    expect(text.body).toEqual({
      content_type: 'text/plain; charset=utf-8',
      headers: { 'content-type': 'text/plain; charset=utf-8', 'X-Env': 'staging' },
      body: 'Hi ADA',
    });
    const plain = await preview(h, { payload: { name: 'Ada' } });
    expect(plain.body.content_type).toBe('application/json');
    expect(JSON.parse(plain.body.body as string)).toMatchObject({
      type: 'submission.created',
      submission_id: 'subm_preview',
      form_id: h.formId,
      payload: { name: 'Ada' },
    });
    const saved = await t.http.get(`/v1/forms/${h.formId}/webhooks/${h.webhookId}`).set(bearer(h.owner.token));
    expect(saved.body.data).toMatchObject({ body_template: null, content_type: 'json', headers: {} });
    expect(await deliveriesCount(h)).toBe(0);
  });

  it('answers 400 naming the field, and 404 for a submission of another form', async () => {
    const h = await hookedForm();
    const other = await hookedForm();
    const theirs = await postForm(t, other.endpoint, { name: 'x' });
    const cases: Array<[unknown, number, string | null]> = [
      [{}, 400, 'submission_id'],
      [{ submission_id: theirs, payload: { a: 1 } }, 400, 'payload'],
      [{ payload: { a: 1 }, body_template: '{"a": "{% if %}"}' }, 400, 'body_template'],
      [{ payload: { a: 1 }, content_type: 'form', body_template: '{"a": 1}' }, 400, 'body_template'],
      [{ payload: { a: 1 }, headers: { 'Webhook-Id': 'x' } }, 400, 'headers.Webhook-Id'],
      [{ payload: { a: 1 }, content_type: 'nope' }, 400, 'content_type'],
      [
        { payload: { m: 'x'.repeat(60_000) }, content_type: 'text', body_template: '{{ m }}'.repeat(20) },
        400,
        'body_template',
      ],
      [{ submission_id: theirs }, 404, null],
      [{ submission_id: 'subm_00000000000000000000000000' }, 404, null],
    ];
    for (const [body, status, path] of cases) {
      const res = await preview(h, body);
      expect(res.status, `${JSON.stringify(body).slice(0, 100)}: ${res.text.slice(0, 300)}`).toBe(status);
      if (path) expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
      else expect(res.body.error).toBe('not_found');
    }
    const slack = await t.http
      .post(`/v1/forms/${h.formId}/webhooks`)
      .set(bearer(h.owner.token))
      .send({ label: 'Chat', url: 'https://127.0.0.1:9/hook', provider: 'slack' });
    const chat = await t.http
      .post(`/v1/forms/${h.formId}/webhooks/${slack.body.data.id as string}/preview`)
      .set(bearer(h.owner.token))
      .send({ payload: { a: 1 }, body_template: 'x' });
    expect(chat.status).toBe(400);
    expect(chat.body.details).toMatchObject([{ path: 'body_template' }]);
    expect(await deliveriesCount(h)).toBe(0);
  });
});
