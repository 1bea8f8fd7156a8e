/**
 * The webhook receiver of bench/noisy-neighbour.ts in a process of its own: `node bench/lib/receiver-process.ts`.
 *
 * The HTTPS receiver (test/support/https-receiver.ts) takes every delivery of both teams: ~80 a second of
 * team B's, and the bursts of team A's bulk replays. In the process that generates and times team B's load,
 * that work (TLS, parsing, its garbage) delayed B's own requests as the client saw them, and A's replays
 * made it a cost of the noisy run only. Here it runs beside the load generator instead.
 *
 * stdout, one JSON line each: `{"event":"ready","url":…,"caBundlePath":…}` (the CA bundle the server must
 * trust, NODE_EXTRA_CA_CERTS), then every 200 ms `{"event":"received","b":[[submission_id, receivedAt], …],
 * "others":n}`: team B's deliveries (path /b) with the time (Date.now()) each had arrived whole, and how many
 * other requests arrived. Ends on SIGTERM or SIGINT.
 */
import { startHttpsReceiver } from '../../test/support/https-receiver.ts';
import { testCertificate } from '../../test/support/tls.ts';

const receiver = await startHttpsReceiver();
const write = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
write({ event: 'ready', url: receiver.url, caBundlePath: testCertificate().caBundlePath });

const report = () => {
  const b: Array<[string, number]> = [];
  let others = 0;
  for (const r of receiver.requests.splice(0)) {
    if (r.path === '/b') b.push([(JSON.parse(r.body) as { submission_id: string }).submission_id, r.receivedAt]);
    else others += 1;
  }
  if (b.length || others) write({ event: 'received', b, others });
};
const timer = setInterval(report, 200);

const stop = async () => {
  clearInterval(timer);
  report();
  await receiver.close();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
