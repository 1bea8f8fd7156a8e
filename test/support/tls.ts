import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type TestCertificate = { key: string; cert: string; caBundlePath: string };

let cached: TestCertificate | null = null;

/**
 * A self-signed certificate for localhost / 127.0.0.1 / ::1 (made once per process with openssl), and a CA
 * bundle that trusts it: the machine's own NODE_EXTRA_CA_CERTS file, if any, followed by it — appended,
 * never replaced (npm on this machine needs the existing one).
 */
export function testCertificate(): TestCertificate {
  if (cached) return cached;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'intake-tls-'));
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-keyout', keyFile, '-out', certFile, '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
    '-addext', 'basicConstraints=critical,CA:true',
  ], { stdio: 'ignore' });
  const cert = fs.readFileSync(certFile, 'utf8');
  const existing = process.env.NODE_EXTRA_CA_CERTS;
  const inherited = existing && fs.existsSync(existing) ? `${fs.readFileSync(existing, 'utf8').trimEnd()}\n` : '';
  const caBundlePath = path.join(dir, 'ca-bundle.pem');
  fs.writeFileSync(caBundlePath, inherited + cert);
  cached = { key: fs.readFileSync(keyFile, 'utf8'), cert, caBundlePath };
  return cached;
}

/** Environment for a server or worker child process that must trust the test receivers (never for the test process). */
export function serverProcessEnv(): Record<string, string> {
  return { NODE_EXTRA_CA_CERTS: testCertificate().caBundlePath };
}
