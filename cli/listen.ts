import type { Command } from 'commander';
import { createClient, type ListenEvent } from '../sdk/index.ts';
import { fail, UsageError } from './exit-status.ts';
import { forwardId, generateSecret, signatureHeaders } from './forward-signing.ts';
import { paint, useColour } from './output.ts';
import { connection, withConnectionOptions } from './profiles.ts';
import { VERSION } from './version.ts';

/**
 * `intake listen --form frm_… [--forward-to http://localhost:3000/hook]`: a form's new submissions on
 * this machine as they are processed (the SDK's `listen()`, which reconnects by itself with the last
 * event id), printed one per line and optionally posted to a local URL signed exactly as a webhook
 * delivery is — same body, same headers — with a secret of this run, as the Stripe CLI's `listen` does.
 * Docs: README "The CLI", docs/listen.md.
 */

/** A receiver gets this long to answer a forwarded event (as a delivery attempt does). */
const FORWARD_TIMEOUT_MS = 15_000;
/** Payload fields shown on an event's line. */
const SHOWN_FIELDS = 3;

type ListenOpts = {
  form: string;
  forwardTo?: string;
  secret?: string;
  includeSpam?: boolean;
  lastEventId?: string;
  json?: boolean;
  profile?: string;
};

/** One readable value: control characters as spaces, at most 40 characters. */
function short(value: unknown): string {
  const text = (typeof value === 'string' ? value : (JSON.stringify(value) ?? '')).replace(/\p{Cc}/gu, ' ');
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** `18:20:01  subm_…  email=ada@example.com  name=Ada  message=Hello…` (spam is marked). */
export function eventLine(e: ListenEvent, colour: boolean): string {
  const s = e.submission;
  const time = new Date(s.received_at).toISOString().replace('T', ' ').slice(0, 19);
  const fields = Object.entries(s.payload)
    .slice(0, SHOWN_FIELDS)
    .map(([k, v]) => `${paint(2, `${short(k)}=`, colour)}${short(v)}`);
  const files = s.files.length ? [`${s.files.length} file${s.files.length === 1 ? '' : 's'}`] : [];
  const tag = e.event === 'spam' ? [paint(33, 'spam', colour)] : [];
  return [paint(2, time, colour), s.submission_id, ...tag, ...fields, ...files].join('  ');
}

/** Posts the event's body as a webhook delivery would be posted; answers the receiver's status or why there was none. */
async function forward(url: string, secret: string, e: ListenEvent): Promise<string> {
  const headers = {
    'content-type': 'application/json',
    'user-agent': `Intake-Webhooks/${VERSION}`,
    ...signatureHeaders(secret, forwardId(), Math.floor(Date.now() / 1000), e.data),
  };
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: e.data,
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await res.body?.cancel().catch(() => {});
    return String(res.status);
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    return (err as Error).name === 'TimeoutError' ? 'timeout' : (cause?.code ?? (err as Error).message);
  }
}

function checkOptions(o: ListenOpts): void {
  if (o.forwardTo) {
    let url: URL | null = null;
    try {
      url = new URL(o.forwardTo);
    } catch {
      // reported below
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      throw new UsageError('--forward-to must be an http:// or https:// URL');
  }
  if (o.secret !== undefined && !/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/.test(o.secret)) {
    throw new UsageError(
      '--secret must be a signing secret: whsec_ followed by base64 (e.g. one printed by an earlier run)',
    );
  }
}

async function listen(o: ListenOpts): Promise<void> {
  checkOptions(o);
  const { url, token } = connection(o.profile);
  const client = createClient({ baseUrl: url, token });
  const colour = useColour(process.stderr);
  const out = useColour();
  const secret = o.forwardTo ? (o.secret ?? generateSecret()) : null;
  const stop = new AbortController();
  let lastEventId = o.lastEventId ?? null;
  let connected = false;
  const quit = () => stop.abort();
  process.once('SIGINT', quit);
  process.once('SIGTERM', quit);

  const events = client.listen(o.form, {
    ...(o.lastEventId ? { lastEventId: o.lastEventId } : {}),
    ...(o.includeSpam ? { include: 'spam' as const } : {}),
    signal: stop.signal,
    onConnect: () => {
      if (connected) return void process.stderr.write(`${paint(32, 'reconnected', colour)}\n`);
      connected = true;
      // One write: whoever waits for "Ready!" has the secret in the same chunk.
      const forwarding = secret
        ? `Forwarding to ${o.forwardTo}, signed with ${paint(1, secret, colour)} (verify as a webhook: verifyWebhook(secret, headers, rawBody))\n`
        : '';
      process.stderr.write(
        `${paint(32, 'Ready!', colour)} Listening for submissions to ${o.form}${o.includeSpam ? ' (spam included)' : ''} — Ctrl-C to stop\n${forwarding}`,
      );
    },
    onReconnect: ({ delayMs, error }) => {
      const why = error instanceof Error ? error.message : error ? String(error) : 'the server ended the stream';
      process.stderr.write(
        `${paint(33, 'connection lost', colour)} (${why}); reconnecting in ${(delayMs / 1000).toFixed(1)} s\n`,
      );
    },
  });
  for await (const e of events) {
    lastEventId = e.id;
    const status = secret ? await forward(o.forwardTo!, secret, e) : null;
    if (o.json) {
      process.stdout.write(`${JSON.stringify({ id: e.id, event: e.event, submission: e.submission })}\n`);
      if (status) process.stderr.write(`${e.submission.submission_id} → ${status}\n`);
    } else {
      const ok = status !== null && /^2\d\d$/.test(status);
      process.stdout.write(`${eventLine(e, out)}${status === null ? '' : `  → ${paint(ok ? 32 : 31, status, out)}`}\n`);
    }
  }
  process.off('SIGINT', quit);
  process.off('SIGTERM', quit);
  if (lastEventId) process.stderr.write(`stopped; resume with --last-event-id ${lastEventId}\n`);
}

export function registerListen(program: Command): void {
  withConnectionOptions(program.command('listen'))
    .description(
      "Print a form's new submissions as they are processed, and optionally forward them to a local URL signed like webhooks",
    )
    .requiredOption('--form <id>', 'the form (frm_…)')
    .usage('--form <id> [options]')
    .option(
      '--forward-to <url>',
      'POST each submission to this URL, signed as a webhook delivery (e.g. http://localhost:3000/hook)',
    )
    .option(
      '--secret <whsec>',
      'sign forwarded requests with this secret (default: a new one per run, printed at start)',
    )
    .option('--include-spam', 'also show (and forward) submissions filed as spam')
    .option(
      '--last-event-id <id>',
      'resume right after this event (an `id` printed by --json, or the one printed when stopped)',
    )
    .option('--json', 'print each event as one line of JSON: { id, event, submission }')
    .addHelpText(
      'after',
      '\nExamples:\n  intake listen --form frm_…\n  intake listen --form frm_… --forward-to http://localhost:3000/hook\n' +
        '  intake listen --form frm_… --json | jq .submission.payload\n',
    )
    .action(async (o: ListenOpts) => {
      try {
        await listen(o);
      } catch (err) {
        fail(err);
      }
    });
}
