import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The test certificate's PEM key and certificate, and a CA bundle file that trusts it on top of the machine's own extra CAs. */
export type TestCertificate = { key: string; cert: string; caBundlePath: string };

const OPENSSL = '/usr/bin/openssl';

let cached: TestCertificate | null = null;

/**
 * A self-signed EC P-256 certificate for localhost / 127.0.0.1 / ::1, made once per process with openssl, so
 * webhook tests can run real HTTPS receivers. It is marked CA:true so it is its own trust anchor. The CA
 * bundle is the machine's current NODE_EXTRA_CA_CERTS file, if any, followed by it — appended, never
 * replaced, because npm on this machine needs the existing one. The files go when the process exits.
 */
export function testCertificate(): TestCertificate {
  if (cached) return cached;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'intake-tls-'));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  process.once('exit', remove);
  // Vitest stops its fork workers with SIGTERM (Ctrl-C sends SIGINT), and a signal skips 'exit' listeners:
  // remove the files there too, then let the signal end the process as it would have without us.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      remove();
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  // stderr is piped so a failure carries openssl's own message.
  execFileSync(
    OPENSSL,
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
      '-addext',
      'basicConstraints=critical,CA:true',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const cert = fs.readFileSync(certFile, 'utf8');
  const existing = process.env.NODE_EXTRA_CA_CERTS;
  const inherited = existing && fs.existsSync(existing) ? `${fs.readFileSync(existing, 'utf8').trimEnd()}\n` : '';
  const caBundlePath = path.join(dir, 'ca-bundle.pem');
  fs.writeFileSync(caBundlePath, inherited + cert);
  cached = { key: fs.readFileSync(keyFile, 'utf8'), cert, caBundlePath };
  return cached;
}

/**
 * Environment for a server or worker child process that must trust the test receivers. Only for children:
 * Node reads NODE_EXTRA_CA_CERTS at startup, and the test process itself keeps the machine's own trust.
 */
export function serverProcessEnv(): Record<string, string> {
  return { NODE_EXTRA_CA_CERTS: testCertificate().caBundlePath };
}
