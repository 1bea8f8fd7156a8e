import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as jobs from '../../server/infra/queue/definitions.ts';
import { makePublishedForm } from '../support/forms.ts';
import { makeTeam } from '../support/harness.ts';
import { jobsFor, postForm, startProcessingApp, waitForProcessing } from '../support/processing.ts';
import { parseMail, startSmtpTestServer, type ReceivedMail } from '../support/smtp.ts';

const smtp = await startSmtpTestServer();
afterAll(() => smtp.close());
const t = await startProcessingApp({ SMTP_URL: smtp.url });
const files = await startProcessingApp(); // no SMTP_URL, a fresh data dir

/** Unique recipients per test, so each test finds its own messages on the shared SMTP server. */
const inbox = (label: string) => `${label}-${randomBytes(4).toString('hex')}@example.com`;

async function mailTo(address: string, count = 1): Promise<ReceivedMail[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = smtp.messages.filter((m) => m.envelope.to.includes(address));
    if (found.length >= count) return found;
    if (Date.now() > deadline) throw new Error(`no mail for ${address}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('notification e-mail over SMTP', () => {
  it('sends a clean submission to every notification address, with its subject, Reply-To and fields', async () => {
    const owner = await makeTeam(t);
    const [a, b] = [inbox('sales'), inbox('ops')];
    const form = await makePublishedForm(t, owner, { name: 'Contact', notification_emails: [a, b] });
    const id = await postForm(t, form.endpoint, {
      name: 'Grace Hopper',
      email: 'Grace@Navy.example',
      topic: ['pricing', 'demo'],
      message: 'Could we get a quote for 40 seats? ✓',
      _subject: 'Quote request from the website',
    });

    // One message per address: each carries its own unsubscribe link.
    const [mail] = await mailTo(a);
    const [forB] = await mailTo(b);
    expect(mail!.envelope.to).toEqual([a]);
    expect(forB!.envelope.to).toEqual([b]);
    expect(mail!.envelope.from).toBe('notifications@intake.local');
    expect(mail!.header('from')).toBe('Intake <notifications@intake.local>');
    expect(mail!.header('to')).toBe(a);
    expect(mail!.subject).toBe('Quote request from the website');
    expect(mail!.header('reply-to')).toBe('grace@navy.example');
    expect(mail!.text).toContain('name: Grace Hopper');
    expect(mail!.text).toContain('email: Grace@Navy.example');
    expect(mail!.text).toContain('topic: pricing, demo');
    expect(mail!.text).toContain('message: Could we get a quote for 40 seats? ✓');
    expect(mail!.text).toMatch(/Mark as spam: http:\/\/intake\.test\/a\/\S+/);
    expect(mail!.text).not.toContain('_subject');
    expect(mail!.html).toContain('<th');
    expect(mail!.header('list-unsubscribe')).toMatch(/^<http:\/\/intake\.test\/u\/\S+>$/);
    expect(mail!.header('list-unsubscribe')).not.toBe(forB!.header('list-unsubscribe'));
    // Each address is sent its message once.
    expect(smtp.messages.filter((m) => m.envelope.to.includes(a))).toHaveLength(1);
    expect(smtp.messages.filter((m) => m.envelope.to.includes(b))).toHaveLength(1);
    expect(id).toBeTruthy();
    expect((await waitForProcessing(t, id)).status).toBe('processed');
  });

  it('defaults the subject to the form name and takes Reply-To from _replyto', async () => {
    const owner = await makeTeam(t);
    const to = inbox('owner');
    const form = await makePublishedForm(t, owner, { name: 'Café feedback – 2025', notification_emails: [to] });
    await postForm(t, form.endpoint, {
      name: 'Ann',
      email: 'ann@example.com',
      message: 'Lovely place, thanks!',
      _replyto: 'ann.work@example.org',
    });

    const [mail] = await mailTo(to);
    expect(mail!.subject).toBe('New submission to Café feedback – 2025');
    expect(mail!.header('reply-to')).toBe('ann.work@example.org');
    expect(mail!.text).toContain('message: Lovely place, thanks!');
  });

  it('sends nothing for spam, whether the ingest stack or the AI caught it', async () => {
    const owner = await makeTeam(t);
    const to = inbox('spam-check');
    const form = await makePublishedForm(t, owner, { notification_emails: [to] });
    const honeypot = await postForm(t, form.endpoint, {
      name: 'Bot',
      email: 'bot@example.net',
      message: 'hi',
      _gotcha: 'filled',
    });
    const ai = await postForm(t, form.endpoint, {
      name: 'Promo',
      email: 'deals@example.net',
      message: 'Casino bonus! Buy now and click here: http://win.example/a http://win.example/b',
    });
    expect((await waitForProcessing(t, ai)).status).toBe('spam');
    // A clean post afterwards is mailed: by then any mail for the spam would have been queued too.
    const clean = await postForm(t, form.endpoint, {
      name: 'Real person',
      email: 'real@example.com',
      message: 'A genuine question.',
    });

    const [mail] = await mailTo(to);
    expect(mail!.text).toContain('name: Real person');
    expect(mail!.header('reply-to')).toBe('real@example.com');
    expect(await jobsFor(t, honeypot)).toEqual([]);
    expect(await jobsFor(t, ai, jobs.notificationEmail.name)).toEqual([]);
    expect((await jobsFor(t, clean, jobs.notificationEmail.name)).length).toBe(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.messages.filter((m) => m.envelope.to.includes(to))).toHaveLength(1);
  });

  it('keeps hostile control values out of the headers and the recipient list', async () => {
    const owner = await makeTeam(t);
    const to = inbox('headers');
    const form = await makePublishedForm(t, owner, { notification_emails: [to] });
    await postForm(t, form.endpoint, {
      name: 'Mallory',
      email: 'mallory@example.com, victim@example.net',
      message: 'hello',
      _subject: 'Hello\r\nBcc: evil@example.net',
    });

    const [mail] = await mailTo(to);
    expect(mail!.envelope.to).toEqual([to]);
    expect(mail!.headers.has('bcc')).toBe(false);
    expect(mail!.headers.has('cc')).toBe(false);
    expect(mail!.subject).not.toMatch(/[\r\n]/);
    // Two addresses in the e-mail field are not a sender address: no Reply-To rather than a list.
    expect(mail!.headers.has('reply-to')).toBe(false);
  });

  it('sends nothing when the form has no notification addresses', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const id = await postForm(t, form.endpoint, { name: 'Nobody listens', message: 'hello' });
    expect((await waitForProcessing(t, id)).status).toBe('processed');
    expect(await jobsFor(t, id, jobs.notificationEmail.name)).toEqual([]);
  });
});

describe('notification e-mail without SMTP', () => {
  const mailDir = () => path.join(files.dataDir, 'mail');
  const emls = () => (fs.existsSync(mailDir()) ? fs.readdirSync(mailDir()).filter((f) => f.endsWith('.eml')) : []);

  it('writes the message as an .eml file into INTAKE_DATA_DIR/mail/', async () => {
    const owner = await makeTeam(files);
    const to = inbox('files');
    const form = await makePublishedForm(files, owner, { name: 'Support', notification_emails: [to] });
    const spam = await postForm(files, form.endpoint, {
      name: 'x',
      email: 'x@mailinator.com',
      message: 'https://a.example https://b.example https://c.example',
    });
    expect((await waitForProcessing(files, spam)).status).toBe('spam');
    const id = await postForm(files, form.endpoint, {
      name: 'Linus',
      email: 'linus@example.org',
      message: 'The export crashes.',
    });

    const deadline = Date.now() + 10_000;
    while (emls().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    const written = emls();
    expect(written).toHaveLength(1); // the spam wrote none
    const mail = await parseMail(fs.readFileSync(path.join(mailDir(), written[0]!), 'utf8'));
    expect(mail.header('to')).toBe(to);
    expect(mail.header('from')).toBe('Intake <notifications@intake.local>');
    expect(mail.subject).toBe('New submission to Support');
    expect(mail.header('reply-to')).toBe('linus@example.org');
    expect(mail.text).toContain('name: Linus');
    expect(mail.text).toContain('message: The export crashes.');
    expect(mail.html).toContain('The export crashes.');
    expect(id).toBeTruthy();
  });
});
