import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeMember, makeTeam, type TestMember } from '../support/harness.ts';
import { startHttpsReceiver } from '../support/https-receiver.ts';
import { postForm, startProcessingApp, waitForProcessing } from '../support/processing.ts';
import { startSmtpTestServer } from '../support/smtp.ts';
import { eventually, workerProcesses } from '../support/worker-process.ts';
import { DEFAULT_HONEYPOT_FIELD as HONEYPOT } from '../../contract/public-endpoint.ts';

// Rules as they run in processing, sent by a real `intake worker` (the process that trusts the receivers'
// certificate): triage set, rules recorded, e-mail to the rule's addresses with a templated subject (real
// SMTP), the form's own addresses replaced, the autoresponder skipped, spam, and a rule-only webhook whose
// delivery verifies with the Standard Webhooks reference library.
const smtp = await startSmtpTestServer();
afterAll(() => smtp.close());
const ENV = {
  INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true',
  INTAKE_INGEST_RATE_LIMIT: '100000',
  INTAKE_INGEST_FLOOD_LIMIT: '100000',
  INTAKE_VERIFY_NOTIFICATION_EMAILS: 'false',
  SMTP_URL: smtp.url,
};
const t = await startProcessingApp(ENV, { worker: false });
workerProcesses({ databaseUrl: t.databaseUrl, dataDir: t.dataDir, env: ENV }).start();

const rules = (formId: string) => `/v1/forms/${formId}/rules`;

async function rule(m: TestMember, formId: string, body: Record<string, unknown>): Promise<string> {
  const res = await t.http.post(rules(formId)).set(bearer(m.token)).send(body);
  expect(res.status, res.text).toBe(201);
  return res.body.data.id;
}

async function detail(m: TestMember, formId: string, id: string) {
  const res = await t.http.get(`/v1/forms/${formId}/submissions/${id}`).set(bearer(m.token));
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

const mailTo = (address: string) => smtp.messages.filter((m) => m.envelope.to.includes(address));

describe('rules in processing', () => {
  it('tags, stages and assigns, mails its own addresses with a templated subject in place of the form’s, and records itself', async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const editor = await makeMember(t, owner.teamId, 'editor');
    const form = await makePublishedForm(t, owner, {
      name: 'Enquiries',
      notification_emails: ['inbox@example.com'],
      settings: { autoresponder: { enabled: true, subject: 'Thanks', body_markdown: 'We got it.' } },
    });
    const sales = await rule(owner, form.id, {
      name: 'Sales to sales@',
      when: { all: [{ field: 'department', op: 'equals', value: 'sales' }] },
      actions: [
        {
          type: 'notify',
          to: ['sales@example.com'],
          subject: 'Lead: {{ name | upper }} on {{ form.name }}',
          replace_default: true,
        },
        { type: 'tag', add: ['Lead'] },
        { type: 'stage', to: 'in_progress' },
        { type: 'assign', user_id: editor.userId },
        { type: 'skip_autoresponder' },
      ],
    });
    await rule(owner, form.id, {
      name: 'Support',
      when: { all: [{ field: 'department', op: 'equals', value: 'support' }] },
      actions: [{ type: 'tag', add: ['support'] }],
    });

    const id = await postForm(t, form.endpoint, { name: 'Ada', department: 'Sales', email: 'ada@example.org' });
    const processed = await waitForProcessing(t, id, 30_000);
    expect(processed.status).toBe('processed');
    const got = await detail(owner, form.id, id);
    expect(got).toMatchObject({
      tags: ['lead'],
      stage: 'in_progress',
      assignee: { id: editor.userId },
      rules_applied: [
        {
          rule_id: sales,
          name: 'Sales to sales@',
          actions: ['notify', 'tag', 'stage', 'assign', 'skip_autoresponder'],
        },
      ],
    });

    await eventually(
      async () => mailTo('sales@example.com').length,
      (n) => n >= 1,
      20_000,
    );
    expect(mailTo('sales@example.com')[0]!.subject).toBe('Lead: ADA on Enquiries');
    // The assignee is told; the form's own address and the submitter are not.
    await eventually(
      async () => smtp.messages.filter((m) => m.subject?.startsWith('Assigned to you')).length,
      (n) => n >= 1,
      20_000,
    );
    await new Promise((r) => setTimeout(r, 1000));
    expect(mailTo('inbox@example.com')).toHaveLength(0);
    expect(mailTo('ada@example.org')).toHaveLength(0);

    const activity = await t.http.get(`/v1/forms/${form.id}/submissions/${id}/activity`).set(bearer(owner.token));
    expect(activity.status, activity.text).toBe(200);
    const fields = (activity.body.data as Array<{ actor: unknown; change: { field: string; to: unknown } }>).map(
      (e) => [e.change.field, e.actor],
    );
    expect(fields).toEqual(
      expect.arrayContaining([
        ['rules', null],
        ['tags', null],
        ['stage', null],
        ['assignee', null],
      ]),
    );

    // The CSV export names the rules that fired.
    const csv = await t.http.get(`/v1/forms/${form.id}/submissions/export?format=csv`).set(bearer(owner.token));
    expect(csv.status).toBe(200);
    const [header, row] = csv.text.trim().split(/\r?\n/);
    const at = header!.split(',').indexOf('_rules');
    expect(at).toBeGreaterThan(-1);
    expect(row).toContain('Sales to sales@');

    // A submission no rule holds for: the form's own address is mailed and the submitter answered; nothing is recorded.
    const other = await postForm(t, form.endpoint, { name: 'Bo', department: 'Billing', email: 'bo@example.org' });
    await waitForProcessing(t, other, 30_000);
    expect((await detail(owner, form.id, other)).rules_applied).toEqual([]);
    await eventually(
      async () => mailTo('inbox@example.com').length + Math.min(mailTo('bo@example.org').length, 1),
      (n) => n >= 2,
      20_000,
    );
    expect(mailTo('ada@example.org')).toHaveLength(0);
  });

  it('moves to spam, and sends a webhook with no events only what a rule sends it, verified as Standard Webhooks', async () => {
    const receiver = await startHttpsReceiver();
    afterAll(() => receiver.close());
    const owner = await makeTeam(t, { plan: 'scale' });
    const form = await makePublishedForm(t, owner);
    const hook = await t.http
      .post(`/v1/forms/${form.id}/webhooks`)
      .set(bearer(owner.token))
      .send({ label: 'CRM', url: `${receiver.localhostUrl}/crm`, events: [] });
    expect(hook.status, hook.text).toBe(201);
    await rule(owner, form.id, {
      name: 'Competitors are spam',
      when: { all: [{ field: 'email', op: 'ends_with', value: '@competitor.example' }] },
      actions: [{ type: 'move_to_spam', reason: 'competitor' }],
      stop: true,
    });
    await rule(owner, form.id, {
      name: 'Big budgets to the CRM',
      when: { all: [{ field: 'budget', op: 'gt', value: 5000 }] },
      actions: [{ type: 'webhook', webhook_id: hook.body.data.id }],
    });

    const spam = await postForm(t, form.endpoint, { email: 'x@COMPETITOR.example', budget: '9000' });
    const small = await postForm(t, form.endpoint, { email: 'a@example.org', budget: '100' });
    const big = await postForm(t, form.endpoint, { email: 'b@example.org', budget: '9000' });
    expect(await waitForProcessing(t, spam, 30_000)).toMatchObject({ status: 'spam', spam_reason: 'form_rule' });
    await waitForProcessing(t, small, 30_000);
    await waitForProcessing(t, big, 30_000);

    const [req] = await receiver.waitFor(1, 30_000);
    const event = new StandardWebhook(hook.body.secret).verify(req!.body, req!.headers as Record<string, string>) as {
      type: string;
      submission_id: string;
    };
    expect(event).toMatchObject({ type: 'submission.created', submission_id: big });
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.requests).toHaveLength(1);
  });

  it('runs the rules on spam caught at the door, once, and notifies the form after them', async () => {
    const receiver = await startHttpsReceiver();
    afterAll(() => receiver.close());
    const owner = await makeTeam(t, { plan: 'scale' });
    const form = await makePublishedForm(t, owner, {
      notification_emails: ['spam-watch@example.com'],
      settings: { notify_spam: true },
    });
    const hook = await t.http
      .post(`/v1/forms/${form.id}/webhooks`)
      .set(bearer(owner.token))
      .send({ label: 'Spam log', url: `${receiver.localhostUrl}/spam`, events: [] });
    expect(hook.status, hook.text).toBe(201);
    const bots = await rule(owner, form.id, {
      name: 'Bots',
      on: 'submission.spam',
      when: { all: [{ field: '@spam_reason', op: 'equals', value: 'honeypot_filled' }] },
      actions: [
        { type: 'tag', add: ['bot'] },
        { type: 'webhook', webhook_id: hook.body.data.id },
      ],
    });
    // A rule on clean submissions does not run on spam.
    await rule(owner, form.id, { name: 'Everything clean', actions: [{ type: 'tag', add: ['clean'] }] });

    const id = await postForm(t, form.endpoint, { email: 'bot@example.org', [HONEYPOT]: 'gotcha' });
    await eventually(
      async () => (await detail(owner, form.id, id)).rules_applied as unknown[],
      (applied) => applied.length === 1,
      20_000,
    );
    const got = await detail(owner, form.id, id);
    expect(got).toMatchObject({ status: 'spam', spam_reason: 'honeypot_filled', tags: ['bot'] });
    expect(got.rules_applied).toEqual([{ rule_id: bots, name: 'Bots', actions: ['tag', 'webhook'] }]);
    const [req] = await receiver.waitFor(1, 20_000);
    const event = new StandardWebhook(hook.body.secret).verify(req!.body, req!.headers as Record<string, string>);
    expect(event).toMatchObject({ type: 'submission.spam', submission_id: id, spam_reason: 'honeypot_filled' });
    await eventually(
      async () => mailTo('spam-watch@example.com').length,
      (n) => n >= 1,
      20_000,
    );
    expect(mailTo('spam-watch@example.com')[0]!.subject).toMatch(/^\[Spam\]/);
  });
});
