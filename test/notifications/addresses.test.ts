import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { confirmationToken } from '../../server/domain/notifications/addresses.ts';
import * as jobs from '../../server/infra/queue/definitions.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, type TestApp, type TestMember } from '../support/harness.ts';
import { jobsFor, postForm, startProcessingApp, waitForProcessing } from '../support/processing.ts';
import { startSmtpTestServer, type ReceivedMail } from '../support/smtp.ts';
import { until } from '../support/until.ts';

const smtp = await startSmtpTestServer();
afterAll(() => smtp.close());
// Confirmation on, as in production; `open` has it off, as `make dev` does.
const t = await startProcessingApp({ SMTP_URL: smtp.url, INTAKE_VERIFY_NOTIFICATION_EMAILS: 'true' });
const open = await startProcessingApp({ SMTP_URL: smtp.url, INTAKE_VERIFY_NOTIFICATION_EMAILS: 'false' });

/** Unique addresses per test, so each test finds its own messages on the shared SMTP server. */
const inbox = (label: string) => `${label}-${randomBytes(4).toString('hex')}@example.com`;

const mailsTo = (to: string) => smtp.messages.filter((m) => m.envelope.to.includes(to));
const confirmationsTo = (to: string) => mailsTo(to).filter((m) => m.subject?.startsWith('Confirm notifications'));
const notificationsTo = (to: string) => mailsTo(to).filter((m) => m.subject?.startsWith('New submission'));

const confirmationMail = (to: string, count = 1) =>
  until(
    `${count} confirmation(s) to ${to}`,
    () => confirmationsTo(to).length >= count && confirmationsTo(to)[count - 1],
  );

function linkIn(mail: ReceivedMail): { url: string; token: string } {
  const match = /http:\/\/intake\.test\/v\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/.exec(mail.text);
  if (!match) throw new Error(`no confirmation link in: ${mail.text}`);
  return { url: match[0], token: match[1]! };
}

async function recipients(app: TestApp, member: TestMember, formId: string) {
  const res = await app.http.get(`/v1/forms/${formId}`).set(bearer(member.token));
  expect(res.status).toBe(200);
  return res.body.data.notification_recipients as Array<{ email: string; status: string }>;
}

/** The confirm-address-email jobs queued for an address (any team, any state). */
async function confirmationJobs(app: TestApp, email: string): Promise<Array<{ teamId: string; state: string }>> {
  const { rows } = await app.ctx.db.query<{ teamId: string; state: string }>(
    `select data->>'teamId' as "teamId", state::text from pgboss.job where name = $1 and data->>'email' = $2 order by created_on`,
    [jobs.confirmAddressEmail.name, email.toLowerCase()],
  );
  return rows;
}

/** Waits until the submission's notification job (if any) has run: after it, nothing more is sent for it. */
async function notificationSettled(app: TestApp, id: string): Promise<void> {
  expect((await waitForProcessing(app, id)).status).toBe('processed');
  await until(`the notification job of ${id}`, async () => {
    const list = await jobsFor(app, id, jobs.notificationEmail.name);
    return list.length > 0 && list.every((j) => j.state === 'completed');
  });
}

const follow = (app: TestApp, token: string) => app.http.get(`/v/${token}`);

describe('confirmed notification addresses', () => {
  it('sends nothing to an address until it follows its link, then only to the confirmed one', async () => {
    const owner = await makeTeam(t);
    const [a, b] = [inbox('sales'), inbox('ops')];
    const form = await makePublishedForm(t, owner, { name: 'Contact', notification_emails: [a, b] });

    // Each address gets its own confirmation e-mail with a link.
    const [ca, cb] = [await confirmationMail(a), await confirmationMail(b)];
    for (const [mail, to] of [
      [ca, a],
      [cb, b],
    ] as const) {
      expect(mail.envelope.to).toEqual([to]);
      expect(mail.header('to')).toBe(to);
      expect(mail.subject).toMatch(/^Confirm notifications from Team /);
      expect(mail.text).toContain(to);
      expect(mail.text).toContain('7 days');
    }
    const linkA = linkIn(ca);
    expect(linkA.url).toMatch(/^http:\/\/intake\.test\/v\//);
    expect(linkIn(cb).token).not.toBe(linkA.token);
    expect(await recipients(t, owner, form.id)).toEqual([
      { email: a, status: 'pending' },
      { email: b, status: 'pending' },
    ]);

    // A clean submission now notifies nobody.
    const first = await postForm(t, form.endpoint, { name: 'Ann', email: 'ann@example.org', message: 'first' });
    await notificationSettled(t, first);
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo(a)).toHaveLength(1);
    expect(mailsTo(b)).toHaveLength(1);

    // Following a's link confirms it (for the team), and says so.
    const page = await follow(t, linkA.token);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain('Address confirmed');
    expect(page.text).toContain(a);
    expect(await recipients(t, owner, form.id)).toEqual([
      { email: a, status: 'verified' },
      { email: b, status: 'pending' },
    ]);

    // The next submission is sent to a only.
    const second = await postForm(t, form.endpoint, { name: 'Bob', email: 'bob@example.org', message: 'second' });
    const notification = await until('the notification to a', () => notificationsTo(a)[0]);
    expect(notification.envelope.to).toEqual([a]);
    expect(notification.text).toContain('message: second');
    await notificationSettled(t, second);
    await new Promise((r) => setTimeout(r, 300));
    expect(notificationsTo(a)).toHaveLength(1);
    expect(mailsTo(b)).toHaveLength(1);

    // Following the link again is harmless.
    const again = await follow(t, linkA.token);
    expect(again.status).toBe(200);
    expect(again.text).toContain('Address confirmed');
  });

  it('confirms once per team: another form of the team is verified at once, another team asks again', async () => {
    const owner = await makeTeam(t);
    const a = inbox('shared');
    await makePublishedForm(t, owner, { notification_emails: [a] });
    expect((await follow(t, linkIn(await confirmationMail(a)).token)).status).toBe(200);

    const second = await makePublishedForm(t, owner, { name: 'Second', notification_emails: [a] });
    expect(await recipients(t, owner, second.id)).toEqual([{ email: a, status: 'verified' }]);
    // No new confirmation was queued for it (queued in the form's transaction, so this is final).
    expect(await confirmationJobs(t, a)).toEqual([{ teamId: owner.teamId, state: expect.any(String) }]);
    const id = await postForm(t, second.endpoint, { name: 'Ann', message: 'to the second form' });
    expect((await until('the notification', () => notificationsTo(a)[0])).text).toContain(
      'message: to the second form',
    );
    await notificationSettled(t, id);
    expect(confirmationsTo(a)).toHaveLength(1);

    // Another team's form with the same address: its own confirmation, pending until followed.
    const other = await makeTeam(t);
    const theirs = await makePublishedForm(t, other, { notification_emails: [a] });
    expect(await recipients(t, other, theirs.id)).toEqual([{ email: a, status: 'pending' }]);
    const theirMail = await confirmationMail(a, 2);
    const jobsNow = await confirmationJobs(t, a);
    expect(jobsNow.map((j) => j.teamId)).toEqual([owner.teamId, other.teamId]);
    // Nothing of theirs is sent to it meanwhile.
    const pendingPost = await postForm(t, theirs.endpoint, { name: 'Zed', message: 'for the other team' });
    await notificationSettled(t, pendingPost);
    expect(notificationsTo(a).some((m) => m.text.includes('for the other team'))).toBe(false);
    // The first team's own forms are unaffected.
    expect(await recipients(t, owner, second.id)).toEqual([{ email: a, status: 'verified' }]);

    // Their link confirms the address for their team.
    const page = await follow(t, linkIn(theirMail).token);
    expect(page.status).toBe(200);
    expect(page.text).toContain(a);
    expect(await recipients(t, other, theirs.id)).toEqual([{ email: a, status: 'verified' }]);
  });

  it('refuses a tampered, foreign or expired link with a 404 page, confirming nothing', async () => {
    const owner = await makeTeam(t);
    const a = inbox('links');
    const form = await makePublishedForm(t, owner, { notification_emails: [a] });
    const { token } = linkIn(await confirmationMail(a));
    const [payload, signature] = token.split('.') as [string, string];

    const otherTeamPayload = Buffer.from(
      [`team_${randomBytes(8).toString('hex')}`, a, String(Math.floor(Date.now() / 1000) + 3600)].join('\u001f'),
    ).toString('base64url');
    const flipped = (s: string) => s.slice(0, -2) + (s.at(-2) === 'A' ? 'B' : 'A') + s.at(-1);
    const bad = [
      `${flipped(payload)}.${signature}`, // payload changed, signature kept
      `${payload}.${flipped(signature)}`, // signature changed
      `${otherTeamPayload}.${signature}`, // another team's payload under this signature
      confirmationToken(randomBytes(32), owner.teamId, a, Math.floor(Date.now() / 1000) + 3600), // signed with another key
      `${payload}.${signature}.extra`,
      payload,
      'not-a-token',
    ];
    for (const link of bad) {
      const res = await follow(t, link);
      expect(res.status, link).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('This link is not valid');
      expect(res.text).not.toContain('Address confirmed');
    }

    // Signed with the right key, but its time is past.
    const expired = confirmationToken(
      t.ctx.keys.addressConfirmation,
      owner.teamId,
      a,
      Math.floor(Date.now() / 1000) - 60,
    );
    const res = await follow(t, expired);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('This link is not valid');
    expect(res.text).toMatch(/expired/i);

    expect(await recipients(t, owner, form.id)).toEqual([{ email: a, status: 'pending' }]);

    // A link for a team that no longer exists is not valid either (and does not confirm anything).
    const gone = confirmationToken(
      t.ctx.keys.addressConfirmation,
      `team_${randomBytes(8).toString('hex')}`,
      a,
      Math.floor(Date.now() / 1000) + 3600,
    );
    expect((await follow(t, gone)).status).toBe(404);
  });

  it('re-sends a pending address’s link at most hourly when the form is saved, and asks a newly added address', async () => {
    const owner = await makeTeam(t);
    const [a, c] = [inbox('resave'), inbox('added')];
    const form = await makePublishedForm(t, owner, { notification_emails: [a] });
    await confirmationMail(a);

    for (const body of [
      { notification_emails: [a] },
      { name: 'Renamed' },
      { notification_emails: [a.toUpperCase()] },
    ]) {
      const res = await t.http.put(`/v1/forms/${form.id}`).set(bearer(owner.token)).send(body);
      expect(res.status).toBe(200);
    }
    expect(await confirmationJobs(t, a)).toHaveLength(1);

    // A newly added address is asked; the pending one still not again.
    const added = await t.http
      .put(`/v1/forms/${form.id}`)
      .set(bearer(owner.token))
      .send({ notification_emails: [a, c] });
    expect(added.status).toBe(200);
    expect(added.body.data.notification_recipients).toEqual([
      { email: a, status: 'pending' },
      { email: c, status: 'pending' },
    ]);
    await confirmationMail(c);
    expect(await confirmationJobs(t, a)).toHaveLength(1);

    // An hour later, saving the form sends the pending address a fresh link.
    await t.ctx.db.query(
      `update notification_addresses set confirmation_sent_at = now() - interval '61 minutes' where team_id = $1`,
      [owner.teamId],
    );
    await t.http
      .put(`/v1/forms/${form.id}`)
      .set(bearer(owner.token))
      .send({ notification_emails: [a, c] });
    await confirmationMail(a, 2);
    await confirmationMail(c, 2);
    await new Promise((r) => setTimeout(r, 200));
    expect(confirmationsTo(a)).toHaveLength(2);
  });

  it('never asks an address that has confirmed again, even after an hour', async () => {
    const owner = await makeTeam(t);
    const a = inbox('confirmed');
    const form = await makePublishedForm(t, owner, { notification_emails: [a] });
    expect((await follow(t, linkIn(await confirmationMail(a)).token)).status).toBe(200);
    await t.ctx.db.query(
      `update notification_addresses set confirmation_sent_at = now() - interval '2 hours' where team_id = $1`,
      [owner.teamId],
    );
    const res = await t.http
      .put(`/v1/forms/${form.id}`)
      .set(bearer(owner.token))
      .send({ notification_emails: [a] });
    expect(res.body.data.notification_recipients).toEqual([{ email: a, status: 'verified' }]);
    expect(await confirmationJobs(t, a)).toHaveLength(1);
  });

  it('treats addresses case-insensitively: a link confirms the address however the form spells it', async () => {
    const owner = await makeTeam(t);
    const lower = inbox('mixed');
    const spelled = lower.replace(/^mixed/, 'Mixed').replace('example.com', 'Example.COM');
    const form = await makePublishedForm(t, owner, { notification_emails: [spelled] });
    const mail = await confirmationMail(lower);
    expect(await recipients(t, owner, form.id)).toEqual([{ email: spelled, status: 'pending' }]);
    expect((await follow(t, linkIn(mail).token)).status).toBe(200);
    expect(await recipients(t, owner, form.id)).toEqual([{ email: spelled, status: 'verified' }]);
    await postForm(t, form.endpoint, { name: 'Ann', message: 'case' });
    // Sent to the address as the form spells it (the domain part is case-insensitive, nodemailer lower-cases it).
    const notification = await until('the notification', () =>
      smtp.messages.find(
        (m) => m.subject?.startsWith('New submission') && m.envelope.to.some((to) => to.toLowerCase() === lower),
      ),
    );
    expect(notification.text).toContain('message: case');
  });
});

describe('with confirmation turned off', () => {
  it('asks nobody, shows not_required, and notifies at once', async () => {
    const owner = await makeTeam(open);
    const [a, b] = [inbox('open-a'), inbox('open-b')];
    const form = await makePublishedForm(open, owner, { notification_emails: [a, b] });
    expect(await recipients(open, owner, form.id)).toEqual([
      { email: a, status: 'not_required' },
      { email: b, status: 'not_required' },
    ]);
    expect(await confirmationJobs(open, a)).toEqual([]);

    const id = await postForm(open, form.endpoint, { name: 'Ann', email: 'ann@example.org', message: 'straight away' });
    const mail = await until('the notification', () => notificationsTo(a)[0]);
    const forB = await until('the notification', () => notificationsTo(b)[0]);
    expect(mail.envelope.to).toEqual([a]);
    expect(forB.envelope.to).toEqual([b]);
    expect(mail.text).toContain('message: straight away');
    await notificationSettled(open, id);
    expect(confirmationsTo(a)).toHaveLength(0);
    expect(confirmationsTo(b)).toHaveLength(0);
  });
});
