import fs from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { PRIVATE_FILE, privateDir, privateTree } from '../storage/private-files.ts';

export type Mail = {
  to: string[];
  subject: string;
  text: string;
  /** An HTML alternative to the text (the message is then multipart/alternative). */
  html?: string;
  replyTo?: string;
  /** A display name for the service's own sender address (the address never changes). */
  fromName?: string;
  headers?: Record<string, string>;
};

export type Mailer = { send(mail: Mail): Promise<{ messageId: string; file?: string }>; close(): void };

/**
 * SMTP via nodemailer when SMTP_URL is set; otherwise each message is written to
 * `<dataDir>/mail/<time>-<id>.eml` so development needs no mail server.
 */
export function createMailer(opts: { smtpUrl: string | undefined; from: string; dataDir: string }): Mailer {
  const fromAddress = /<([^<>]+)>\s*$/.exec(opts.from)?.[1] ?? opts.from.trim();
  const message = ({ fromName, ...mail }: Mail) => ({
    ...mail,
    from: fromName ? { name: fromName, address: fromAddress } : opts.from,
  });
  if (opts.smtpUrl) {
    const transport = nodemailer.createTransport(opts.smtpUrl);
    return {
      async send(mail) {
        const info = await transport.sendMail(message(mail));
        return { messageId: info.messageId };
      },
      close: () => transport.close(),
    };
  }
  // The messages hold submissions: readable by the owner only, files already there included.
  const dir = path.join(opts.dataDir, 'mail');
  if (fs.existsSync(dir)) privateTree(dir);
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(mail) {
      const info = await transport.sendMail(message(mail));
      privateDir(dir);
      const file = path.join(dir, `${Date.now()}-${info.messageId.replace(/[^\w.-]/g, '')}.eml`);
      fs.writeFileSync(file, info.message as Buffer, { mode: PRIVATE_FILE });
      return { messageId: info.messageId, file };
    },
    close: () => transport.close(),
  };
}
