import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { sendDigests } from '../../server/domain/notifications/notifications.ts';
import { signToken } from '../../server/domain/notifications/signed-tokens.ts';
import { launchChromium } from '../support/browser.ts';
import { makePublishedForm, submissionsOf } from '../support/forms.ts';
import { bearer, makeTeam } from '../support/harness.ts';
import { postForm, startProcessingApp, waitForProcessing } from '../support/processing.ts';
import { startSmtpTestServer, type ReceivedMail } from '../support/smtp.ts';
import { eventually } from '../support/worker-process.ts';

const smtp = await startSmtpTestServer();
afterAll(() => smtp.close());
const t = await startProcessingApp({
  SMTP_URL: smtp.url,
  INTAKE_INGEST_RATE_LIMIT: '10000',
  INTAKE_INGEST_FLOOD_LIMIT: '10000',
});

const inbox = (label: string) => `${label}-${randomBytes(4).toString('hex')}@example.com`;
const mailsTo = (address: string) => smtp.messages.filter((m) => m.envelope.to.includes(address));
const firstMail = (address: string) =>
  eventually(
    async () => mailsTo(address),
    (m) => m.length > 0,
  ).then((m) => m[0]!);

/** The link after a label in the text part (`Mark as spam: http://…`). */
function link(mail: ReceivedMail, label: string): string {
  const m = new RegExp(`${label}: (http\\S+)`).exec(mail.text);
  if (!m) throw new Error(`no "${label}" link in:\n${mail.text}`);
  return m[1]!;
}
/** A link of the test app as a path the supertest client can request. */
const local = (url: string) => url.replace('http://intake.test', '');

describe('the notification e-mail people read', () => {
  it('is multipart: fields in the schema order with labels, escaped, long values kept whole, files as working links, the category', async () => {
    const owner = await makeTeam(t);
    const to = inbox('read');
    const form = await makePublishedForm(t, owner, {
      name: 'Careers',
      notification_emails: [to],
      // (The long repeated value would look like spam to the local model: this form never calls it spam.)
      settings: {
        ai_threshold: 1,
        fields: [
          { name: 'message', label: 'Your message', type: 'text' },
          { name: 'email', label: 'E-mail', type: 'email' },
        ],
      },
    });
    const long = `${'word '.repeat(300)}end`;
    const res = await t.http
      .post(form.endpoint)
      .set('Accept', 'application/json')
      .field('email', 'ada@example.com')
      .field('message', 'I want to apply for the <b>support</b> role & more')
      .field('notes', long)
      .attach('cv', Buffer.from('%PDF-1.7 cv'), { filename: 'cv.pdf', contentType: 'application/pdf' });
    expect(res.status).toBe(201);
    const stored = await waitForProcessing(t, res.body.id);
    const mail = await firstMail(to);

    expect(mail.header('content-type')).toMatch(/^multipart\/alternative/);
    // The schema's fields first, in its order, under their labels; then the others.
    const order = ['Your message', 'E-mail', 'notes'].map((h) => mail.text.indexOf(`${h}: `));
    expect(order.every((i, n) => i > 0 && (n === 0 || i > order[n - 1]!))).toBe(true);
    expect(mail.text).toContain(`notes: ${long}`);
    expect(mail.text).toContain(`category: ${stored.category}`);
    expect(mail.html).not.toContain('<b>support</b>');
    expect(mail.html).toContain('I want to apply for the &lt;b&gt;support&lt;/b&gt; role &amp; more');
    // The file's link works (a signed /d/ link that answers with a fresh storage URL).
    const fileUrl = /cv\.pdf \(11 bytes\): (http\S+)/.exec(mail.text)![1]!;
    expect((await t.http.get(local(fileUrl))).status).toBe(302);

    // Rendered by a real browser: the fields and the action links are there to see and click.
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      await page.setViewportSize({ width: 800, height: 900 });
      await page.setContent(mail.html!);
      const visible = await page.locator('body').innerText();
      for (const text of [
        'Your message',
        'E-mail',
        'ada@example.com',
        'I want to apply for the <b>support</b> role & more',
        'cv.pdf',
        'Mark as spam',
        'Delete',
        'Unsubscribe',
      ]) {
        expect(visible).toContain(text);
      }
      expect(await page.locator('b').count()).toBe(0);
      const hrefs = await page.locator('a').evaluateAll((as) => as.map((a) => (a as unknown as { href: string }).href));
      expect(hrefs.filter((h) => h.startsWith('http://intake.test/a/'))).toHaveLength(2);
      // The long value wraps inside the page instead of widening it.
      const width = await page.evaluate('document.documentElement.scrollWidth');
      expect(width).toBeLessThanOrEqual(800);
      const shot = await page.screenshot({ fullPage: true });
      expect(shot.length).toBeGreaterThan(10_000);
    } finally {
      await browser.close();
    }
  });

  it('one-click actions: the link shows a page, its button acts; expired and altered links do nothing', async () => {
    const owner = await makeTeam(t);
    const to = inbox('actions');
    const form = await makePublishedForm(t, owner, { notification_emails: [to] });
    const id = await postForm(t, form.endpoint, { name: 'Grace', message: 'A real question' });
    const mail = await firstMail(to);
    const spamLink = local(link(mail, 'Mark as spam'));

    const prompt = await t.http.get(spamLink);
    expect(prompt.status).toBe(200);
    expect(prompt.text).toContain('<form method="post">');
    expect((await submissionsOf(t, form.id))[0]!.status).toBe('processed'); // a GET (a mail scanner) changes nothing
    const done = await t.http.post(spamLink);
    expect(done.status).toBe(200);
    expect(done.text).toContain('marked as spam');
    expect((await submissionsOf(t, form.id))[0]).toMatchObject({ status: 'spam', spam_reason: 'manual' });
    const events = await t.ctx.db.query<{ action: string; actor_token_id: string | null }>(
      'select action, actor_token_id from submission_events where submission_id = $1',
      [id],
    );
    expect(events.rows).toEqual([{ action: 'email:spam', actor_token_id: null }]);
    expect((await t.http.post(spamLink)).text).toContain('already marked as spam');

    const altered = spamLink.slice(0, -3) + (spamLink.endsWith('AAA') ? 'BBB' : 'AAA');
    expect((await t.http.post(altered)).status).toBe(404);
    const expired = `/a/${signToken(t.ctx.keys.emailActions, [id, 'delete', String(Math.floor(Date.now() / 1000) - 1)])}`;
    const refused = await t.http.post(expired);
    expect(refused.status).toBe(404);
    expect(refused.text).toContain('expired');
    expect(await submissionsOf(t, form.id)).toHaveLength(1);

    const deleteLink = local(link(mail, 'Delete'));
    expect((await t.http.post(deleteLink)).text).toContain('deleted');
    expect(await submissionsOf(t, form.id)).toEqual([]);
    expect((await t.http.get(deleteLink)).status).toBe(404);
  });

  it('spam is e-mailed, marked, when the form asks; its "Not spam" link puts it back through processing', async () => {
    const owner = await makeTeam(t);
    const to = inbox('spam');
    const form = await makePublishedForm(t, owner, { notification_emails: [to], settings: { notify_spam: true } });
    await postForm(t, form.endpoint, { name: 'Maybe a bot', message: 'hello there', _gotcha: 'filled' });
    const mail = await firstMail(to);
    expect(mail.subject).toMatch(/^\[Spam\] /);
    expect(mail.text).toContain('Marked as spam (honeypot_filled).');
    const done = await t.http.post(local(link(mail, 'Not spam')));
    expect(done.text).toContain('moved back to the inbox');
    await eventually(
      async () => (await submissionsOf(t, form.id))[0]!.status,
      (s) => s === 'processed',
    );
    // Processed, it is notified as any clean submission.
    await eventually(
      async () => mailsTo(to),
      (m) => m.length === 2,
    );
  });

  it('links signed before they named their team still work: a file, an action, an unsubscribe', async () => {
    const owner = await makeTeam(t);
    const to = inbox('unnamed-team');
    const form = await makePublishedForm(t, owner, { notification_emails: [to] });
    const res = await t.http
      .post(form.endpoint)
      .set('Accept', 'application/json')
      .field('name', 'Ada')
      .attach('cv', Buffer.from('%PDF-1.7 cv'), { filename: 'cv.pdf', contentType: 'application/pdf' });
    expect(res.status).toBe(201);
    const id = res.body.id as string;
    await waitForProcessing(t, id);
    const mail = await firstMail(to);
    const fileUrl = local(/cv\.pdf \(11 bytes\): (http\S+)/.exec(mail.text)![1]!);
    expect(fileUrl).toContain(`&team=${owner.teamId}`);
    expect((await t.http.get(fileUrl.replace(`&team=${owner.teamId}`, ''))).status).toBe(302);
    expect((await t.http.get(fileUrl.replace(owner.teamId, (await makeTeam(t)).teamId))).status).toBe(404);

    const expires = String(Math.floor(Date.now() / 1000) + 3600);
    const action = await t.http.post(`/a/${signToken(t.ctx.keys.emailActions, [id, 'spam', expires])}`);
    expect(action.text).toContain('marked as spam');
    expect((await submissionsOf(t, form.id))[0]).toMatchObject({ status: 'spam', spam_reason: 'manual' });
    const unsubscribe = await t.http.post(`/u/${signToken(t.ctx.keys.unsubscribeLinks, [form.id, to])}`);
    expect(unsubscribe.text).toContain('no longer notified');
    const shown = await t.http.get(`/v1/forms/${form.id}`).set(bearer(owner.token));
    expect(shown.body.data.notification_emails).toEqual([]);
  });

  it('unsubscribes one address from one form in one click (RFC 8058), and the form shows it', async () => {
    const owner = await makeTeam(t);
    const [a, b] = [inbox('unsub-a'), inbox('unsub-b')];
    const form = await makePublishedForm(t, owner, { notification_emails: [a, b] });
    const other = await makePublishedForm(t, owner, { notification_emails: [a] });
    await postForm(t, form.endpoint, { name: 'First', message: 'one' });
    const mail = await firstMail(a);
    expect(mail.header('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    const url = /^<(.+)>$/.exec(mail.header('list-unsubscribe')!)![1]!;
    expect(mail.text).toContain(`Unsubscribe: ${url}`);
    expect((await t.http.get(local(url))).text).toContain('Unsubscribe?');

    // What a mail client sends for one-click unsubscribe.
    const res = await t.http.post(local(url)).type('form').send('List-Unsubscribe=One-Click');
    expect(res.status).toBe(200);
    expect(res.text).toContain('no longer notified');
    const shown = await t.http.get(`/v1/forms/${form.id}`).set(bearer(owner.token));
    expect(shown.body.data.notification_emails).toEqual([b]);
    const untouched = await t.http.get(`/v1/forms/${other.id}`).set(bearer(owner.token));
    expect(untouched.body.data.notification_emails).toEqual([a]);

    await postForm(t, form.endpoint, { name: 'Second', message: 'two' });
    await eventually(
      async () => mailsTo(b),
      (m) => m.length === 2,
    );
    expect(mailsTo(a)).toHaveLength(1);
    expect((await t.http.post(local(url))).status).toBe(200); // again: nothing more to do
  });
});

describe('digests', () => {
  it('an hourly form gets one e-mail per period listing its clean submissions, none for an empty period, nothing twice', async () => {
    const owner = await makeTeam(t);
    const to = inbox('digest');
    const form = await makePublishedForm(t, owner, {
      notification_emails: [to],
      settings: { notification_mode: 'hourly' },
    });
    const ids = [
      await postForm(t, form.endpoint, { name: 'One', message: 'first' }),
      await postForm(t, form.endpoint, { name: 'Two', message: 'second' }),
    ];
    for (const id of ids) await waitForProcessing(t, id);
    await postForm(t, form.endpoint, { name: 'Bot', _gotcha: 'x' });
    await new Promise((r) => setTimeout(r, 500));
    expect(mailsTo(to)).toHaveLength(0); // no instant mail

    const at = new Date(Date.now() + 5 * 60 * 1000); // the next run, with the posts well inside its period
    await sendDigests(t.ctx, at);
    const [digest] = await eventually(
      async () => mailsTo(to),
      (m) => m.length === 1,
    );
    expect(digest!.subject).toBe('2 new submissions to Contact');
    expect(digest!.text).toContain('name: One');
    expect(digest!.text).toContain('name: Two');
    expect(digest!.text).not.toContain('name: Bot');
    expect(digest!.header('list-unsubscribe')).toMatch(/\/u\//);

    await sendDigests(t.ctx, at); // the same run again (a retry): nothing twice
    await sendDigests(t.ctx, new Date(at.getTime() + 3600 * 1000)); // the next hour: nothing new
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo(to)).toHaveLength(1);
  });
});
