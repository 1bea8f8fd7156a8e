import { randomBytes } from 'node:crypto';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { afterAll, describe, expect, it } from 'vitest';
import { renderAutoresponse } from '../../server/domain/notifications/autoresponder.ts';
import * as jobs from '../../server/infra/queue/definitions.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, type TestMember } from '../support/harness.ts';
import { jobsFor, postForm, startProcessingApp, waitForProcessing } from '../support/processing.ts';
import { startSmtpTestServer, type ReceivedMail } from '../support/smtp.ts';

const smtp = await startSmtpTestServer();
afterAll(() => smtp.close());
const t = await startProcessingApp({ SMTP_URL: smtp.url });

/** A fresh submitter address per use, so each test finds its own messages on the shared SMTP server. */
const address = (label: string) => `${label}-${randomBytes(4).toString('hex')}@example.com`;

const mailsTo = (to: string) => smtp.messages.filter((m) => m.envelope.to.includes(to));

async function mailTo(to: string, count = 1): Promise<ReceivedMail[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = mailsTo(to);
    if (found.length >= count) return found;
    if (Date.now() > deadline) throw new Error(`no mail for ${to}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

type Autoresponse = { sent_at?: string; to?: string; skipped?: string } | null;

async function detail(
  member: TestMember,
  formId: string,
  id: string,
): Promise<{ status: string; autoresponse: Autoresponse }> {
  const res = await t.http.get(`/v1/forms/${formId}/submissions/${id}`).set(bearer(member.token));
  expect(res.status).toBe(200);
  return res.body.data;
}

/** Polls the submission until the autoresponder has recorded its outcome. */
async function outcome(member: TestMember, formId: string, id: string): Promise<NonNullable<Autoresponse>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { autoresponse } = await detail(member, formId, id);
    if (autoresponse) return autoresponse;
    if (Date.now() > deadline) throw new Error(`no autoresponse outcome for ${id}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until every autoresponse-email job of the submission has finished (so nothing more can be sent for it). */
async function autoresponseJobsSettled(id: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const list = await jobsFor(t, id, jobs.autoresponseEmail.name);
    if (list.every((j) => j.state === 'completed' || j.state === 'failed')) return;
    if (Date.now() > deadline) throw new Error(`autoresponse jobs of ${id} still running: ${JSON.stringify(list)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const TEMPLATE = {
  enabled: true,
  subject: 'Thanks {{name}}, we got your {{topic}} request',
  body_markdown: [
    'Hello **{{name}}**,',
    '',
    'You wrote: {{message}}',
    '',
    'Read [our FAQ](https://help.example/faq?who={{name}}) while you wait.',
    '',
    '— The Acme team',
  ].join('\n'),
  from_name: 'Acme Support',
  reply_to: 'help@acme.example',
};

async function formWithAutoresponder(
  member: TestMember,
  settings: Record<string, unknown> = {},
  autoresponder: Record<string, unknown> = TEMPLATE,
) {
  const form = await makePublishedForm(t, member, { name: 'Contact' });
  const res = await t.http
    .put(`/v1/forms/${form.id}`)
    .set(bearer(member.token))
    .send({ settings: { ...settings, autoresponder } });
  expect(res.status).toBe(200);
  return form;
}

const firstAddress = (a: AddressObject | AddressObject[] | undefined) => [a ?? []].flat()[0]?.value[0];

async function parsed(mail: ReceivedMail): Promise<ParsedMail> {
  return simpleParser(mail.raw);
}

describe('autoresponder: the e-mail', () => {
  it('answers a clean post with one multipart/alternative message from the form’s template', async () => {
    const owner = await makeTeam(t);
    const form = await formWithAutoresponder(owner);
    const submitter = address('ada');
    const id = await postForm(t, form.endpoint, {
      name: 'Ada Lovelace',
      email: submitter,
      topic: 'pricing',
      message: 'Could we get a quote for 40 seats?',
    });

    const [mail] = await mailTo(submitter);
    expect(mail!.envelope.to).toEqual([submitter]);
    expect(mail!.envelope.from).toBe('notifications@intake.local');
    const m = await parsed(mail!);
    expect(firstAddress(m.from)).toEqual({ name: 'Acme Support', address: 'notifications@intake.local' });
    expect(firstAddress(m.to)?.address).toBe(submitter);
    expect(firstAddress(m.replyTo)?.address).toBe('help@acme.example');
    expect(m.headers.get('auto-submitted')).toBe('auto-replied');
    expect(m.subject).toBe('Thanks Ada Lovelace, we got your pricing request');
    expect((m.headers.get('content-type') as { value: string }).value).toBe('multipart/alternative');
    // Both alternatives, placeholders filled: the text as the Markdown, the HTML rendered.
    expect(m.text).toContain('Hello **Ada Lovelace**,');
    expect(m.text).toContain('You wrote: Could we get a quote for 40 seats?');
    expect(m.text).toContain('— The Acme team');
    expect(m.html).toContain('<strong>Ada Lovelace</strong>');
    expect(m.html).toContain('You wrote: Could we get a quote for 40 seats?');
    expect(m.html).not.toContain('{{');

    const recorded = await outcome(owner, form.id, id);
    expect(recorded).toEqual({ sent_at: expect.any(String), to: submitter });
    expect(Date.parse(recorded.sent_at!)).toBeGreaterThan(Date.now() - 60_000);
    expect((await detail(owner, form.id, id)).status).toBe('processed');
    await autoresponseJobsSettled(id);
    expect(mailsTo(submitter)).toHaveLength(1);
  });

  it('inserts submitted values as inert text in the HTML and as they are in the text', async () => {
    const owner = await makeTeam(t);
    const form = await formWithAutoresponder(owner);
    const submitter = address('mallory');
    const hostileName = '<script>alert(1)</script>';
    const hostileMessage = '[click](https://evil.example) <img src=x onerror=alert(2)>';
    await postForm(t, form.endpoint, {
      name: hostileName,
      email: submitter,
      topic: 'support',
      message: hostileMessage,
    });

    const m = await parsed((await mailTo(submitter))[0]!);
    const html = m.html as string;
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img/i);
    expect(html).not.toContain('href="https://evil.example');
    expect(html).toContain('<strong>&lt;script&gt;alert(1)&lt;/script&gt;</strong>');
    expect(html).toContain('[click](https://evil.example) &lt;img src=x onerror=alert(2)&gt;');
    // The template's own link keeps its address: the placeholder in it is not filled with a value.
    const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((x) => x[1]);
    expect(hrefs).toHaveLength(1);
    expect(hrefs[0]).toMatch(/^https:\/\/help\.example\/faq\?who=/);
    expect(hrefs[0]).not.toMatch(/script|alert|%3C/i);
    // The text part has the values exactly as posted.
    expect(m.text).toContain(`Hello **${hostileName}**,`);
    expect(m.text).toContain(`You wrote: ${hostileMessage}`);
  });

  it('never fills a placeholder into a link address or markup of the HTML', async () => {
    const owner = await makeTeam(t);
    const form = await formWithAutoresponder(
      owner,
      {},
      {
        ...TEMPLATE,
        body_markdown:
          '[Your page]({{site}}) ![{{name}}](https://img.example/{{name}}.png) <https://acme.example/u/{{name}}> `{{name}}`',
      },
    );
    const submitter = address('links');
    await postForm(t, form.endpoint, {
      name: '" onmouseover="alert(1)',
      site: 'javascript:alert(document.cookie)',
      email: submitter,
    });

    const html = (await parsed((await mailTo(submitter))[0]!)).html as string;
    expect(html).not.toMatch(/javascript:/i);
    expect(html).not.toContain('onmouseover="');
    for (const [, attr] of html.matchAll(/(?:href|src)="([^"]*)"/g))
      expect(attr).not.toMatch(/alert|onmouseover|javascript/i);
    // The value is there only as text (escaped).
    expect(html).toContain('&quot; onmouseover=&quot;alert(1)');
  });

  it('falls back to the default subject when the filled subject is empty', async () => {
    const owner = await makeTeam(t);
    const form = await formWithAutoresponder(owner, {}, { ...TEMPLATE, subject: '{{nothing}}' });
    const submitter = address('empty-subject');
    await postForm(t, form.endpoint, { name: 'Ann', email: submitter });
    const m = await parsed((await mailTo(submitter))[0]!);
    expect(m.subject).toBe('Thank you');
  });

  it('sends without From name or Reply-To when the template has none (the service’s own sender)', async () => {
    const owner = await makeTeam(t);
    const form = await formWithAutoresponder(owner, {}, { ...TEMPLATE, from_name: null, reply_to: null });
    const submitter = address('plain');
    await postForm(t, form.endpoint, { name: 'Ann', email: submitter });
    const m = await parsed((await mailTo(submitter))[0]!);
    expect(firstAddress(m.from)).toEqual({ name: 'Intake', address: 'notifications@intake.local' });
    expect(m.replyTo).toBeUndefined();
  });
});

describe('autoresponder: which address', () => {
  it('prefers _replyto over an e-mail field', async () => {
    const owner = await makeTeam(t);
    const form = await formWithAutoresponder(owner);
    const [explicit, field] = [address('replyto'), address('field')];
    const id = await postForm(t, form.endpoint, { name: 'Ann', email: field, message: 'hello', _replyto: explicit });
    await mailTo(explicit);
    expect(await outcome(owner, form.id, id)).toEqual({ sent_at: expect.any(String), to: explicit });
    await autoresponseJobsSettled(id);
    expect(mailsTo(field)).toHaveLength(0);
  });

  it('uses the schema’s email-typed field whatever it is called, before a field named like e-mail', async () => {
    const owner = await makeTeam(t);
    const form = await formWithAutoresponder(owner, { fields: [{ name: 'contact', type: 'email' }] });
    const [contact, other] = [address('contact'), address('other')];
    const id = await postForm(t, form.endpoint, { name: 'Ann', contact, email_backup: other });
    await mailTo(contact);
    expect(await outcome(owner, form.id, id)).toEqual({ sent_at: expect.any(String), to: contact });
    await autoresponseJobsSettled(id);
    expect(mailsTo(other)).toHaveLength(0);
  });

  it('normalizes the address (trimmed, lower case)', async () => {
    const owner = await makeTeam(t);
    const form = await formWithAutoresponder(owner);
    const submitter = address('case');
    const id = await postForm(t, form.endpoint, { name: 'Ann', 'E-Mail': `  ${submitter.toUpperCase()} ` });
    await mailTo(submitter);
    expect(await outcome(owner, form.id, id)).toEqual({ sent_at: expect.any(String), to: submitter });
  });

  it('records invalid_address for a value that is not an address, and no_address when there is none', async () => {
    const owner = await makeTeam(t);
    const form = await formWithAutoresponder(owner);
    const invalid = await postForm(t, form.endpoint, { name: 'Ann', email: 'not-an-address', message: 'hi' });
    const list = await postForm(t, form.endpoint, {
      name: 'Ann',
      email: 'a@example.com, b@example.com',
      message: 'hi',
    });
    const none = await postForm(t, form.endpoint, { name: 'Ann', message: 'no address at all' });
    expect(await outcome(owner, form.id, invalid)).toEqual({ skipped: 'invalid_address' });
    expect(await outcome(owner, form.id, list)).toEqual({ skipped: 'invalid_address' });
    expect(await outcome(owner, form.id, none)).toEqual({ skipped: 'no_address' });
    expect(mailsTo('a@example.com')).toHaveLength(0);
  });
});

describe('autoresponder: at most one per address per form per hour', () => {
  it('skips a second post from the same address within the hour, and answers another address', async () => {
    const owner = await makeTeam(t);
    const form = await formWithAutoresponder(owner);
    const [ann, bob] = [address('ann'), address('bob')];
    const first = await postForm(t, form.endpoint, { name: 'Ann', email: ann, message: 'first' });
    expect(await outcome(owner, form.id, first)).toMatchObject({ to: ann });

    // The same person again, by another spelling of the same address.
    const second = await postForm(t, form.endpoint, { name: 'Ann', email: ann.toUpperCase(), message: 'second' });
    expect(await outcome(owner, form.id, second)).toEqual({ skipped: 'rate_limited' });
    const other = await postForm(t, form.endpoint, { name: 'Bob', email: bob, message: 'hello' });
    expect(await outcome(owner, form.id, other)).toEqual({ sent_at: expect.any(String), to: bob });
    await autoresponseJobsSettled(second);
    expect(mailsTo(ann)).toHaveLength(1);
    expect(mailsTo(bob)).toHaveLength(1);

    // The limit is per form: the same address on another form of the team is answered.
    const otherForm = await formWithAutoresponder(owner);
    const elsewhere = await postForm(t, otherForm.endpoint, { name: 'Ann', email: ann, message: 'other form' });
    expect(await outcome(owner, otherForm.id, elsewhere)).toMatchObject({ to: ann });
    expect(mailsTo(ann)).toHaveLength(2);
  });

  it('answers again once the hour has passed', async () => {
    const owner = await makeTeam(t);
    const form = await formWithAutoresponder(owner);
    const ann = address('later');
    const first = await postForm(t, form.endpoint, { name: 'Ann', email: ann, message: 'first' });
    expect(await outcome(owner, form.id, first)).toMatchObject({ to: ann });
    await t.ctx.db.query(`update autoresponse_sends set sent_at = now() - interval '61 minutes' where form_id = $1`, [
      form.id,
    ]);
    const second = await postForm(t, form.endpoint, { name: 'Ann', email: ann, message: 'second' });
    expect(await outcome(owner, form.id, second)).toMatchObject({ to: ann });
    expect(await mailTo(ann, 2)).toHaveLength(2);
  });

  it('does not answer the same submission twice when it is processed again (marked spam, then not spam)', async () => {
    const owner = await makeTeam(t);
    const form = await formWithAutoresponder(owner);
    const ann = address('again');
    const id = await postForm(t, form.endpoint, { name: 'Ann', email: ann, message: 'hello' });
    const sent = await outcome(owner, form.id, id);
    expect(sent).toMatchObject({ to: ann });
    await mailTo(ann);

    for (const status of ['spam', 'received']) {
      const put = await t.http.put(`/v1/forms/${form.id}/submissions/${id}`).set(bearer(owner.token)).send({ status });
      expect(put.status).toBe(200);
    }
    expect((await waitForProcessing(t, id)).status).toBe('processed');
    await autoresponseJobsSettled(id);
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo(ann)).toHaveLength(1);
    expect((await detail(owner, form.id, id)).autoresponse).toEqual(sent);
  });
});

describe('autoresponder: spam is never answered', () => {
  it('sends nothing for a honeypot post (stored as spam, never processed)', async () => {
    const owner = await makeTeam(t);
    const form = await formWithAutoresponder(owner);
    const bot = address('bot');
    const id = await postForm(t, form.endpoint, { name: 'Bot', email: bot, message: 'hi', _gotcha: 'filled' });
    expect((await detail(owner, form.id, id)).status).toBe('spam');
    // A clean post after it is answered: any mail for the spam would have been queued by then.
    const real = address('real');
    const clean = await postForm(t, form.endpoint, { name: 'Real', email: real, message: 'A genuine question.' });
    expect(await outcome(owner, form.id, clean)).toMatchObject({ to: real });
    expect(await jobsFor(t, id)).toEqual([]);
    const { autoresponse } = await detail(owner, form.id, id);
    expect(autoresponse === null || autoresponse.skipped === 'spam').toBe(true);
    expect(mailsTo(bot)).toHaveLength(0);
  });

  it('records skipped: spam for a post the AI marks spam, and sends nothing', async () => {
    const owner = await makeTeam(t);
    const form = await formWithAutoresponder(owner);
    const promo = address('promo');
    const id = await postForm(t, form.endpoint, {
      name: 'Promo',
      email: promo,
      message: 'Casino bonus! Buy now and click here: http://win.example/a http://win.example/b http://win.example/c',
    });
    expect((await waitForProcessing(t, id)).status).toBe('spam');
    expect((await detail(owner, form.id, id)).autoresponse).toEqual({ skipped: 'spam' });
    expect(await jobsFor(t, id, jobs.autoresponseEmail.name)).toEqual([]);
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo(promo)).toHaveLength(0);

    // A person saying it is not spam has it processed again, and then it is answered.
    const put = await t.http
      .put(`/v1/forms/${form.id}/submissions/${id}`)
      .set(bearer(owner.token))
      .send({ status: 'received' });
    expect(put.status).toBe(200);
    expect((await waitForProcessing(t, id)).status).toBe('processed');
    expect(await outcome(owner, form.id, id)).toEqual({ sent_at: expect.any(String), to: promo });
    expect(await mailTo(promo)).toHaveLength(1);
  });
});

describe('autoresponder: plan and settings', () => {
  it('is refused on the Free plan (402 plan_limit_reached), on create and on update', async () => {
    const owner = await makeTeam(t, { plan: 'free' });
    const created = await t.http
      .post('/v1/forms')
      .set(bearer(owner.token))
      .send({ name: 'Contact', settings: { autoresponder: { enabled: true } } });
    expect(created.status).toBe(402);
    expect(created.body.error).toBe('plan_limit_reached');

    const form = await makePublishedForm(t, owner);
    const put = await t.http
      .put(`/v1/forms/${form.id}`)
      .set(bearer(owner.token))
      .send({ settings: { autoresponder: TEMPLATE } });
    expect(put.status).toBe(402);
    expect(put.body.error).toBe('plan_limit_reached');
    const shown = await t.http.get(`/v1/forms/${form.id}`).set(bearer(owner.token));
    expect(shown.body.data.settings.autoresponder.enabled).toBe(false);

    // Editing the template without turning it on is allowed.
    const edit = await t.http
      .put(`/v1/forms/${form.id}`)
      .set(bearer(owner.token))
      .send({ settings: { autoresponder: { subject: 'Hi {{name}}' } } });
    expect(edit.status).toBe(200);
    expect(edit.body.data.settings.autoresponder).toMatchObject({ enabled: false, subject: 'Hi {{name}}' });
  });

  it('records skipped: plan when the team has been downgraded since turning it on', async () => {
    const owner = await makeTeam(t);
    const form = await formWithAutoresponder(owner);
    await t.ctx.db.query(`update teams set plan_id = 'free' where id = $1`, [owner.teamId]);
    const submitter = address('downgraded');
    const id = await postForm(t, form.endpoint, { name: 'Ann', email: submitter, message: 'hello' });
    expect(await outcome(owner, form.id, id)).toEqual({ skipped: 'plan' });
    await autoresponseJobsSettled(id);
    expect(mailsTo(submitter)).toHaveLength(0);
  });

  it('merges partial updates, and when turned off sends nothing and records nothing', async () => {
    const owner = await makeTeam(t);
    const form = await formWithAutoresponder(owner);
    const off = await t.http
      .put(`/v1/forms/${form.id}`)
      .set(bearer(owner.token))
      .send({ settings: { autoresponder: { enabled: false } } });
    expect(off.status).toBe(200);
    expect(off.body.data.settings.autoresponder).toEqual({ ...TEMPLATE, enabled: false });

    const submitter = address('disabled');
    const id = await postForm(t, form.endpoint, { name: 'Ann', email: submitter, message: 'hello' });
    expect((await waitForProcessing(t, id)).status).toBe('processed');
    expect(await jobsFor(t, id, jobs.autoresponseEmail.name)).toEqual([]);
    // A clean post to a form with the autoresponder on, after it, is answered: by then any mail would have come.
    const control = await formWithAutoresponder(owner);
    const other = address('control');
    await postForm(t, control.endpoint, { name: 'Bob', email: other });
    await mailTo(other);
    expect((await detail(owner, form.id, id)).autoresponse).toBeNull();
    expect(mailsTo(submitter)).toHaveLength(0);
  });

  it('is off by default', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const shown = await t.http.get(`/v1/forms/${form.id}`).set(bearer(owner.token));
    expect(shown.body.data.settings.autoresponder.enabled).toBe(false);
    const id = await postForm(t, form.endpoint, { name: 'Ann', email: address('default'), message: 'hello' });
    expect((await waitForProcessing(t, id)).status).toBe('processed');
    expect(await jobsFor(t, id, jobs.autoresponseEmail.name)).toEqual([]);
    expect((await detail(owner, form.id, id)).autoresponse).toBeNull();
  });

  it('validates the template (400): reply_to must be an address, the body has a size limit', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    for (const autoresponder of [
      { reply_to: 'not-an-address' },
      { body_markdown: 'x'.repeat(10_001) },
      { subject: '' },
      { surprise: true },
    ]) {
      const res = await t.http
        .put(`/v1/forms/${form.id}`)
        .set(bearer(owner.token))
        .send({ settings: { autoresponder } });
      expect(res.status, JSON.stringify(autoresponder)).toBe(400);
    }
  });
});

describe('renderAutoresponse', () => {
  it('keeps the output bounded for a 10,000-character template full of placeholders and long values', () => {
    const body = '{{a}} {{b}} '.repeat(834).slice(0, 10_000); // ~1,600 placeholders
    expect(body.length).toBe(10_000);
    const payload = { a: 'x'.repeat(100_000), b: '<&>"'.repeat(10_000) };
    const started = performance.now();
    const out = renderAutoresponse(
      { subject: `{{a}}${'{{b}}'.repeat(40)}\r\nBcc: x@example.com`, body_markdown: body },
      payload,
    );
    expect(performance.now() - started).toBeLessThan(2_000);
    // At most 200 values filled per part, each cut at 500 characters.
    expect(out.text.length).toBeLessThanOrEqual(10_000 + 200 * 501);
    expect(out.html.length).toBeLessThanOrEqual(2 * (10_000 + 200 * 501 * 6));
    expect(out.subject.length).toBeLessThanOrEqual(250);
    expect(out.subject).not.toMatch(/[\r\n]/);
    expect(out.html).not.toContain('<&>');
  });

  it('fills the text part plainly and the HTML as escaped text; unknown placeholders become empty', () => {
    const out = renderAutoresponse(
      {
        subject: 'Hi {{ name }}{{missing}}',
        body_markdown: '# Hello {{name}}\n\n- topics: {{topics}}\n- {{missing}}end',
      },
      { name: 'Ann & <Bob>', topics: ['a', 'b'] },
    );
    expect(out.subject).toBe('Hi Ann & <Bob>');
    expect(out.text).toBe('# Hello Ann & <Bob>\n\n- topics: a, b\n- end');
    expect(out.html).toContain('<h1>Hello Ann &amp; &lt;Bob&gt;</h1>');
    expect(out.html).toContain('<li>topics: a, b</li>');
    expect(out.html).toContain('<li>end</li>');
  });

  it('shows raw HTML in the template itself as text', () => {
    const out = renderAutoresponse(
      { subject: 's', body_markdown: 'Hi <b onclick="x()">there</b>\n\n<script>alert(1)</script>' },
      {},
    );
    expect(out.html).not.toMatch(/<script|<b /);
    expect(out.html).toContain('&lt;script&gt;');
  });
});
