const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `<style>body{font-family:system-ui,sans-serif;display:grid;place-items:center;min-height:90vh;margin:0;color:#1f2933}
main{max-width:28rem;text-align:center;padding:2rem}h1{font-size:1.6rem}a{color:#2563eb}</style>`;

/** What a browser that posted to a form that takes no posts is shown (JSON clients get the error body). */
export function formUnavailablePage(message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Form not available</title>
${STYLE}</head>
<body><main><h1>This form is not available</h1><p>${escapeHtml(message)}</p></main></body></html>`;
}

/** The built-in page a browser lands on when the form has no redirect. */
export function thankYouPage(back: string | null): string {
  let link = '';
  if (back) {
    try {
      const u = new URL(back);
      if (u.protocol === 'http:' || u.protocol === 'https:') link = `<p><a href="${escapeHtml(u.toString())}">← Back to the site</a></p>`;
    } catch {
      // not a URL: no link
    }
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Thank you</title>
${STYLE}</head>
<body><main><h1>Thank you!</h1><p>Your submission has been received.</p>${link}</main></body></html>`;
}
