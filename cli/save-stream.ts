import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const units = (n: number) =>
  n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KB` : `${n} B`;

/** Streams an export or a file download to a file or stdout; on a TTY, a progress line (rows, bytes, rate) on stderr. */
export async function saveStream(stream: ReadableStream<Uint8Array>, out: string | undefined): Promise<void> {
  const started = Date.now();
  let bytes = 0;
  let rows = 0;
  const tty = Boolean(process.stderr.isTTY) && Boolean(out);
  let last = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      bytes += chunk.byteLength;
      for (const b of chunk) if (b === 10) rows += 1;
      const now = Date.now();
      if (tty && now - last > 100) {
        last = now;
        const rate = bytes / Math.max(0.001, (now - started) / 1000);
        process.stderr.write(`\r${rows.toLocaleString('en-US')} rows  ${units(bytes)}  ${units(rate)}/s`);
      }
      controller.enqueue(chunk);
    },
  });
  const source = Readable.fromWeb(stream.pipeThrough(counter) as never);
  await pipeline(source, out ? fs.createWriteStream(out) : process.stdout);
  if (tty) process.stderr.write(`\r\u001b[2K${rows.toLocaleString('en-US')} rows, ${units(bytes)} written to ${out}\n`);
}
