import type { NotificationRow } from '../../infra/db/queries/notifications.ts';
import { escapeHtml, valueText } from './display-text.ts';
import { storedSettings } from '../spam/stored-rules.ts';
import { iso } from '../shared/timestamps.ts';

/** The notification e-mail's text and HTML, for one submission or a digest. Pure: links come in ready-made. */

export type SubmissionLinks = {
  /** Signed download links, per file id. */
  files: Record<string, string>;
  /** Signed action links: mark as spam (or not spam, for spam), delete. */
  actions: Array<{ label: string; url: string }>;
};

export type Rendered = { text: string; html: string };

/** A long value is cut here in the e-mail (the submission itself keeps all of it). */
const VALUE_CHARS = 4000;

/** The payload as (heading, value) rows: the schema's fields first, in its order, then the rest as posted. */
export function fieldRows(row: Pick<NotificationRow, 'payload' | 'settings'>): Array<[string, string]> {
  const fields = storedSettings(row.settings).fields.filter((f) => f.type !== 'file');
  const inSchema = new Set(fields.map((f) => f.name));
  const own = (name: string) => Object.hasOwn(row.payload, name);
  return [
    ...fields
      .filter((f) => own(f.name))
      .map((f): [string, string] => [f.label ?? f.name, valueText(row.payload[f.name], VALUE_CHARS)]),
    ...Object.entries(row.payload)
      .filter(([k]) => !inSchema.has(k))
      .map(([k, v]): [string, string] => [k, valueText(v, VALUE_CHARS)]),
  ];
}

function verdict(row: NotificationRow): string | null {
  return row.status === 'spam' ? `Marked as spam${row.spam_reason ? ` (${row.spam_reason})` : ''}` : null;
}

function textBlock(row: NotificationRow, links: SubmissionLinks): string {
  const lines = [
    `Received ${iso(row.received_at)}${row.category ? ` · category: ${row.category}` : ''}`,
    ...(verdict(row) ? [`${verdict(row)}.`] : []),
    '',
    ...fieldRows(row).map(([k, v]) => `${k}: ${v}`),
  ];
  if (row.files.length) {
    lines.push('', 'Files (links work for 7 days):');
    for (const f of row.files) lines.push(`  ${f.filename || f.id} (${f.size} bytes): ${links.files[f.id]}`);
  }
  lines.push('', ...links.actions.map((a) => `${a.label}: ${a.url}`), `Submission ${row.id}`);
  return lines.join('\n');
}

const CELL = 'padding:6px 10px;border-bottom:1px solid #e5e7eb;vertical-align:top;text-align:left';

function htmlBlock(row: NotificationRow, links: SubmissionLinks): string {
  const v = verdict(row);
  const rows = fieldRows(row)
    .map(
      ([k, val]) =>
        `<tr><th style="${CELL};width:30%;color:#4b5563;font-weight:600">${escapeHtml(k)}</th>` +
        `<td style="${CELL};white-space:pre-wrap;word-break:break-word;overflow-wrap:anywhere">${escapeHtml(val)}</td></tr>`,
    )
    .join('');
  const files = row.files.length
    ? `<p style="margin:12px 0 4px;color:#4b5563">Files (links work for 7 days):</p><ul style="margin:0;padding-left:20px">${row.files
        .map(
          (f) =>
            `<li><a href="${escapeHtml(links.files[f.id] ?? '')}">${escapeHtml(f.filename || f.id)}</a> (${f.size} bytes)</li>`,
        )
        .join('')}</ul>`
    : '';
  const actions = links.actions
    .map(
      (a) =>
        `<a href="${escapeHtml(a.url)}" style="display:inline-block;margin:12px 8px 0 0;padding:6px 12px;border:1px solid #d1d5db;border-radius:6px;color:#1f2933;text-decoration:none">${escapeHtml(a.label)}</a>`,
    )
    .join('');
  return `<p style="margin:0 0 8px;color:#4b5563">Received ${escapeHtml(iso(row.received_at))}${row.category ? ` · category: <strong>${escapeHtml(row.category)}</strong>` : ''}</p>
${v ? `<p style="margin:0 0 8px;color:#b91c1c"><strong>${escapeHtml(v)}</strong></p>` : ''}
<table style="border-collapse:collapse;width:100%;max-width:640px;table-layout:fixed">${rows}</table>${files}
<div>${actions}</div>
<p style="margin:8px 0 0;font-size:12px;color:#6b7280">Submission ${escapeHtml(row.id)}</p>`;
}

function page(title: string, body: string, footer: { text: string; url: string }): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1f2933;margin:0;padding:16px">
<h1 style="font-size:18px;margin:0 0 12px">${escapeHtml(title)}</h1>
${body}
<p style="margin-top:24px;font-size:12px;color:#6b7280">${escapeHtml(footer.text)} <a href="${escapeHtml(footer.url)}" style="color:#6b7280">Unsubscribe</a></p>
</body></html>`;
}

export type Footer = { text: string; url: string };

/** One submission's e-mail. */
export function renderNotification(row: NotificationRow, links: SubmissionLinks, footer: Footer): Rendered {
  const title = `New submission to ${row.form_name}`;
  return {
    text: `${title}\n\n${textBlock(row, links)}\n\n--\n${footer.text} Unsubscribe: ${footer.url}\n`,
    html: page(title, htmlBlock(row, links), footer),
  };
}

/** A digest: the period's submissions, newest last, and how many more there were than it lists. */
export function renderDigest(
  formName: string,
  period: string,
  rows: Array<{ row: NotificationRow; links: SubmissionLinks }>,
  more: number,
  footer: Footer,
): Rendered {
  const title = `${rows.length + more} new submission${rows.length + more === 1 ? '' : 's'} to ${formName} (${period})`;
  const moreText = more ? `…and ${more} more: see the form's submissions in the API, CLI or export.` : '';
  return {
    text: `${title}\n\n${rows.map(({ row, links }, i) => `#${i + 1}\n${textBlock(row, links)}`).join('\n\n')}${moreText ? `\n\n${moreText}` : ''}\n\n--\n${footer.text} Unsubscribe: ${footer.url}\n`,
    html: page(
      title,
      rows
        .map(
          ({ row, links }, i) => `<h2 style="font-size:15px;margin:20px 0 6px">#${i + 1}</h2>${htmlBlock(row, links)}`,
        )
        .join('\n') + (moreText ? `<p style="margin-top:16px">${escapeHtml(moreText)}</p>` : ''),
      footer,
    ),
  };
}

/** What the form-closed e-mail says: the form, its limit, when it closed and how to take more. */
export type FormClosedNotice = {
  formId: string;
  formName: string;
  maxSubmissions: number;
  submissions: number;
  closedAt: string;
  /** `PUT` of the form in the API. */
  formUrl: string;
};

const submissionsText = (n: number) => `${n} submission${n === 1 ? '' : 's'}`;

/** The subject and title of the form-closed e-mail. */
export function formClosedTitle(formName: string, maxSubmissions: number): string {
  return `Your form ${formName} is closed: it reached its limit of ${submissionsText(maxSubmissions)}`;
}

/** The form-closed e-mail: the form took the last place of its `max_submissions`. */
export function renderFormClosed(n: FormClosedNotice, footer: Footer): Rendered {
  const title = formClosedTitle(n.formName, n.maxSubmissions);
  const settings = '{"settings": {"max_submissions": <new limit>}}';
  const lines = [
    `It took its last place at ${n.closedAt} and keeps ${submissionsText(n.submissions)}; new posts are refused (403 form_closed, or the closed page in a browser).`,
    '',
    'To take more, raise its limit (max_submissions; null removes it):',
    `  PUT ${n.formUrl}  ${settings}`,
    `  intake forms update ${n.formId} --settings '{"max_submissions": <new limit>}'`,
    'Deleting a submission, or marking one as spam, frees a place too.',
  ];
  const code = (s: string) =>
    `<pre style="margin:4px 0;padding:6px 10px;background:#f3f4f6;border-radius:6px;white-space:pre-wrap;word-break:break-all">${escapeHtml(s)}</pre>`;
  const html = `<p style="margin:0 0 8px">${escapeHtml(lines[0]!)}</p>
<p style="margin:12px 0 4px">To take more, raise its limit (<code>max_submissions</code>; null removes it):</p>
${code(`PUT ${n.formUrl}\n${settings}`)}
${code(`intake forms update ${n.formId} --settings '{"max_submissions": <new limit>}'`)}
<p style="margin:8px 0 0;color:#4b5563">Deleting a submission, or marking one as spam, frees a place too.</p>`;
  return {
    text: `${title}\n\n${lines.join('\n')}\n\n--\n${footer.text} Unsubscribe: ${footer.url}\n`,
    html: page(title, html, footer),
  };
}
