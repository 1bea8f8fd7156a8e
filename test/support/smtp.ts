import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A message as a mail client would read it: envelope, decoded headers and the decoded text body. */
export type ReceivedMail = {
  envelope: { from: string | null; to: string[] };
  /** Header name (lower case) → every value, unfolded and RFC 2047-decoded. */
  headers: Map<string, string[]>;
  header(name: string): string | undefined;
  subject: string | undefined;
  /** The text part (of a multipart message) or the body. */
  text: string;
  /** The HTML part, when there is one. */
  html: string | undefined;
  raw: string;
};

export type SmtpTestServer = {
  /** For SMTP_URL. */
  url: string;
  messages: ReceivedMail[];
  /** Resolves once `count` messages have arrived in total. */
  waitForMessages(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
};

/**
 * A real SMTP server (smtp-server) on 127.0.0.1 at a random port, without TLS or authentication, that
 * keeps every message it accepts.
 */
export async function startSmtpTestServer(): Promise<SmtpTestServer> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const { mailFrom, rcptTo } = session.envelope;
        parseMail(Buffer.concat(chunks).toString('utf8'), {
          from: mailFrom ? mailFrom.address : null,
          to: rcptTo.map((r) => r.address),
        }).then(
          (mail) => {
            messages.push(mail);
            callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const { port } = server.server.address() as AddressInfo;

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitForMessages(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline)
          throw new Error(`expected ${count} messages, got ${messages.length} after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return messages.slice(0, count);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Parses a message as a mail client would: headers unfolded and RFC 2047-decoded (the first value of
 * each), and the text and HTML parts decoded by a real MIME parser (mailparser).
 */
export async function parseMail(
  raw: string,
  envelope: ReceivedMail['envelope'] = { from: null, to: [] },
): Promise<ReceivedMail> {
  const normalized = raw.replace(/\r\n/g, '\n');
  const split = normalized.indexOf('\n\n');
  const head = split === -1 ? normalized : normalized.slice(0, split);
  const headers = new Map<string, string[]>();
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), decodeEncodedWords(line.slice(colon + 1).trim())]);
  }
  const parsed = await simpleParser(raw);
  const header = (name: string) => headers.get(name.toLowerCase())?.[0];
  const html = typeof parsed.html === 'string' ? parsed.html : undefined;
  return {
    envelope,
    headers,
    header,
    subject: header('subject'),
    text: (parsed.text ?? '').replace(/\n$/, ''),
    html,
    raw,
  };
}

function decodeQuotedPrintable(body: string): string {
  const unwrapped = body.replace(/=\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < unwrapped.length; i++) {
    const hex = unwrapped.slice(i + 1, i + 3);
    if (unwrapped[i] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(unwrapped[i]!, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`); whitespace between two of them is dropped. */
function decodeEncodedWords(value: string): string {
  return value
    .replace(/(\?=)\s+(=\?)/g, '$1$2')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_m, _charset: string, kind: string, data: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64').toString('utf8')
        : decodeQuotedPrintable(data.replace(/_/g, ' ')),
    );
}
