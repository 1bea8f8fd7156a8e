/** The few HTML pages people (not programs) see: after posting a form, and from links in e-mails. */

import { createHash } from 'node:crypto';
import type { Response } from 'express';
import { escapeHtml } from '../../domain/notifications/display-text.ts';

const CSS = `body{font-family:system-ui,sans-serif;display:grid;place-items:center;min-height:90vh;margin:0;color:#1f2933}
main{max-width:32rem;padding:2rem}h1{font-size:1.6rem}a{color:#2563eb}ul{padding-left:1.2rem}li{margin:.3rem 0}
.center{text-align:center}
button{font:inherit;padding:.5rem 1rem;border-radius:6px;border:1px solid #1f2933;background:#1f2933;color:#fff;cursor:pointer}`;
const STYLE = `<style>${CSS}</style>`;

/**
 * The pages' policy: their one stylesheet (by its hash) and nothing else — no script, image, frame or
 * plugin; forms post only back to this server; no site may frame them.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(CSS).digest('base64')}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** Answers with a page under its policy. */
export function sendPage(res: Response, status: number, html: string): void {
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.status(status).type('html').send(html);
}

/** One page: `body` is HTML the caller built from escaped parts. */
function page(title: string, body: string, opts: { center?: boolean } = {}): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
${STYLE}</head>
<body><main${opts.center === false ? '' : ' class="center"'}>${body}</main></body></html>`;
}

/** A link back to the page the visitor came from, when it is an http(s) URL. */
function backParagraph(back: string | null, text: string): string {
  if (!back) return '';
  try {
    const u = new URL(back);
    if (u.protocol === 'http:' || u.protocol === 'https:')
      return `<p><a href="${escapeHtml(u.toString())}">${escapeHtml(text)}</a></p>`;
  } catch {
    // not a URL: no link
  }
  return '';
}

/** What a browser that posted to a form that takes no posts is shown (JSON clients get the error body). */
export function formUnavailablePage(message: string): string {
  return page('Form not available', `<h1>This form is not available</h1><p>${escapeHtml(message)}</p>`);
}

/** The built-in page a browser lands on when the form has no redirect. */
export function thankYouPage(back: string | null): string {
  return page(
    'Thank you',
    `<h1>Thank you!</h1><p>Your submission has been received.</p>${backParagraph(back, '← Back to the site')}`,
  );
}

/**
 * A post that breaks the form's schema, for a person: each problem in plain words, nothing stored, and
 * the way back to the form (the browser's Back button keeps what they typed).
 */
export function fieldErrorsPage(fields: Record<string, string[]>, back: string | null): string {
  const items = Object.values(fields)
    .flat()
    .map((m) => `<li>${escapeHtml(m)}</li>`)
    .join('');
  return page(
    'Please check the form',
    `<h1>Please check the form</h1><p>Nothing was sent yet. Please fix ${Object.keys(fields).length === 1 ? 'this' : 'these'} and send it again:</p>
<ul>${items}</ul>
<p>Use your browser's <strong>Back</strong> button to return to the form with your answers.</p>${backParagraph(back, '← Back to the form')}`,
    { center: false },
  );
}

/** A post whose CAPTCHA was missing or refused. */
export function captchaFailedPage(message: string, back: string | null): string {
  return page(
    'Please try again',
    `<h1>Please try again</h1><p>${escapeHtml(message)}</p><p>Nothing was sent yet: use your browser's <strong>Back</strong> button, complete the check and send the form again.</p>${backParagraph(back, '← Back to the form')}`,
  );
}

/** A post to a form that is not taking submissions (not yet open, closed, full), for a person. */
export function formClosedPage(message: string, back: string | null): string {
  return page(
    'Form closed',
    `<h1>This form is closed</h1><p>${escapeHtml(message)}</p>${backParagraph(back, '← Back to the site')}`,
  );
}

/** A post repeating what a unique rule allows once, for a person: nothing new was stored. */
export function duplicatePage(message: string, back: string | null): string {
  return page(
    'Already submitted',
    `<h1>Already submitted</h1><p>${escapeHtml(message)}</p>${backParagraph(back, '← Back to the form')}`,
  );
}

/** The answer to a notification address's confirmation link. */
export function addressConfirmedPage(email: string, team: string): string {
  return page(
    'Address confirmed',
    `<h1>Address confirmed</h1><p><strong>${escapeHtml(email)}</strong> will now receive notifications of new submissions to ${escapeHtml(team)}'s forms.</p>`,
  );
}

export function linkInvalidPage(message: string): string {
  return page('Link not valid', `<h1>This link is not valid</h1><p>${escapeHtml(message)}</p>`);
}

/** A POST button to the page's own URL (no script: it works under any CSP and with scripts off). */
function confirmButton(label: string): string {
  return `<form method="post"><button type="submit">${escapeHtml(label)}</button></form>`;
}

/** What a one-click action link shows: the action is taken by the button (POST), never by the GET. */
export function actionPromptPage(a: { label: string; formName: string; receivedAt: string; status: string }): string {
  return page(
    a.label,
    `<h1>${escapeHtml(a.label)}?</h1><p>The submission to <strong>${escapeHtml(a.formName)}</strong> received ${escapeHtml(a.receivedAt)} (now: ${escapeHtml(a.status)}).</p>${confirmButton(a.label)}`,
  );
}

export function actionDonePage(message: string): string {
  return page('Done', `<h1>Done</h1><p>${escapeHtml(message)}</p>`);
}

export function unsubscribePromptPage(u: { email: string; formName: string; subscribed: boolean }): string {
  if (!u.subscribed) return unsubscribedPage(u);
  return page(
    'Unsubscribe',
    `<h1>Unsubscribe?</h1><p><strong>${escapeHtml(u.email)}</strong> will no longer be notified of submissions to <strong>${escapeHtml(u.formName)}</strong>.</p>${confirmButton('Unsubscribe')}`,
  );
}

export function unsubscribedPage(u: { email: string; formName: string }): string {
  return page(
    'Unsubscribed',
    `<h1>Unsubscribed</h1><p><strong>${escapeHtml(u.email)}</strong> is no longer notified of submissions to <strong>${escapeHtml(u.formName)}</strong>.</p>`,
  );
}
