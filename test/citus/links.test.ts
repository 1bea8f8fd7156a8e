import { afterAll, describe, expect, it } from 'vitest';
import { sendConfirmation } from '../../server/domain/notifications/addresses.ts';
import { sendNotification } from '../../server/domain/notifications/notifications.ts';
import { processSubmission } from '../../server/domain/submissions/processing.ts';
import { appRefusingMultiShard, onCitus } from '../support/citus-app.ts';
import { bearer, makeTeam } from '../support/harness.ts';
import { startSmtpTestServer, type ReceivedMail } from '../support/smtp.ts';
import { eventually } from '../support/worker-process.ts';

/**
 * On a Citus cluster, the links people follow from e-mails and exports run on one team's shard each: an
 * address's confirmation (`/v/`), a submission's one-click actions (`/a/`), unsubscribing (`/u/`) and a file
 * (`/d/`). The app's database refuses every statement that would run on more than one shard, so a link that
 * finds its row by id alone fails. Skipped on plain Postgres.
 */
const smtp = onCitus ? await startSmtpTestServer() : null!;
afterAll(() => smtp?.close());
const app = await appRefusingMultiShard({ SMTP_URL: smtp?.url ?? '', INTAKE_VERIFY_NOTIFICATION_EMAILS: 'true' });
const t = app!;
const citus = app !== null;

const mailTo = (address: string, count = 1) =>
  eventually(
    async () => smtp.messages.filter((m) => m.envelope.to.includes(address)),
    (m) => m.length >= count,
  );
/** The link after a label in the text part (`Delete: http://…`), as a path of the test app. */
function link(mail: ReceivedMail, label: string): string {
  const m = new RegExp(`${label}: (http\\S+)`).exec(mail.text);
  if (!m) throw new Error(`no "${label}" link in:\n${mail.text}`);
  return m[1]!.replace('http://intake.test', '');
}

describe.runIf(citus)('on Citus, a link from an e-mail or an export reads and writes one team’s shard', () => {
  it('confirms an address, serves a file, acts on a submission, unsubscribes', async () => {
    const owner = await makeTeam(t);
    const to = `links-${owner.teamId}@example.com`;
    const created = await t.http
      .post('/v1/forms')
      .set(bearer(owner.token))
      .send({ name: 'Careers', notification_emails: [to] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const form = created.body.data.id as string;
    expect((await t.http.post(`/v1/forms/${form}/publish`).set(bearer(owner.token))).status).toBe(200);

    await sendConfirmation(t.ctx, { teamId: owner.teamId, formId: form, email: to });
    const [confirmation] = await mailTo(to);
    const confirmed = await t.http.get(/(\/v\/\S+)/.exec(confirmation!.text)![1]!);
    expect(confirmed.status, confirmed.text).toBe(200);
    const shown = await t.http.get(`/v1/forms/${form}`).set(bearer(owner.token));
    expect(shown.body.data.notification_recipients).toEqual([{ email: to, status: 'verified' }]);

    const posted = await t.http
      .post(`/f/${form}`)
      .set('Accept', 'application/json')
      .field('name', 'Grace')
      .attach('cv', Buffer.from('%PDF-1.7 cv'), { filename: 'cv.pdf', contentType: 'application/pdf' });
    expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    const id = posted.body.id as string;
    expect(await processSubmission(t.ctx, id, { teamId: owner.teamId })).toBe('processed');
    expect(await sendNotification(t.ctx, id, undefined, Date.now(), owner.teamId)).toBe('sent');
    const mail = (await mailTo(to, 2))[1]!;

    const file = /cv\.pdf \(11 bytes\): http:\/\/intake\.test(\S+)/.exec(mail.text)![1]!;
    expect(file).toContain(`&team=${owner.teamId}`);
    const served = await t.http.get(file).redirects(0);
    expect(served.status, served.text).toBe(302);
    const other = await makeTeam(t);
    expect((await t.http.get(file.replace(owner.teamId, other.teamId))).status).toBe(404);
    const csv = await t.http.get(`/v1/forms/${form}/submissions/export?format=csv`).set(bearer(owner.token));
    expect(csv.status, csv.text).toBe(200);
    const exported = /http:\/\/intake\.test(\/d\/\S+?)(?:,|\s|$)/.exec(csv.text)![1]!;
    expect((await t.http.get(exported).redirects(0)).status).toBe(302);

    const spam = link(mail, 'Mark as spam');
    const prompt = await t.http.get(spam);
    expect(prompt.status, prompt.text).toBe(200);
    expect(prompt.text).toContain('<form method="post">');
    const marked = await t.http.post(spam);
    expect(marked.status, marked.text).toBe(200);
    expect(marked.text).toContain('marked as spam');
    expect((await t.http.get(`/v1/forms/${form}/submissions/${id}`).set(bearer(owner.token))).body.data.status).toBe(
      'spam',
    );

    const unsubscribe = /^<http:\/\/intake\.test(.+)>$/.exec(mail.header('list-unsubscribe')!)![1]!;
    expect((await t.http.get(unsubscribe)).text).toContain('Unsubscribe?');
    const unsubscribed = await t.http.post(unsubscribe).type('form').send('List-Unsubscribe=One-Click');
    expect(unsubscribed.status, unsubscribed.text).toBe(200);
    expect(unsubscribed.text).toContain('no longer notified');
    expect((await t.http.get(`/v1/forms/${form}`).set(bearer(owner.token))).body.data.notification_emails).toEqual([]);

    const deleted = await t.http.post(link(mail, 'Delete'));
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.text).toContain('deleted');
    expect((await t.http.get(file)).status).toBe(404);
  });
});
