import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { composeProblems } from '../../scripts/check-deploy.ts';
import { readCompose, serviceEnvironment } from '../../scripts/deploy-files.ts';
import { connectStorage } from '../../server/infra/storage/object-storage.ts';

/** What compose.yaml lets reach the host's network (scripts/check-deploy.ts, also run by make check). */
const root = path.resolve(import.meta.dirname, '..', '..');
const composeText = fs.readFileSync(path.join(root, 'compose.yaml'), 'utf8');

/** What the operator's .env holds (deploy/.env.example names each). */
const DOT_ENV = {
  INTAKE_DOMAIN: 'forms.example.test',
  INTAKE_SECRET_KEY: 'k',
  POSTGRES_PASSWORD: 'p',
  GARAGE_RPC_SECRET: 'r',
  STORAGE_ACCESS_KEY: 'GK0123456789abcdef01234567',
  STORAGE_SECRET_KEY: 's',
  STORAGE_PUBLIC_HOST: 'files.example.test',
  SMTP_URL: 'smtp://localhost',
};

/** compose.yaml with `lines` added to a service's block, right under its name. */
function withLines(service: string, lines: string[]): string {
  const marker = `\n  ${service}:\n`;
  expect(composeText).toContain(marker);
  return composeText.replace(marker, `${marker}${lines.map((l) => `    ${l}\n`).join('')}`);
}

describe('deploy exposure', () => {
  it('compose.yaml publishes the proxy only', () => {
    expect(composeProblems(readCompose())).toEqual([]);
  });

  it('refuses any other service that publishes a port, in either syntax or bound to one address', () => {
    for (const [service, ports] of [
      ['garage', ['ports:', '  - "3900:3900"']],
      ['garage-init', ['ports:', '  - "3901"']],
      ['postgres', ['ports:', '  - "127.0.0.1:5432:5432"']],
      ['serve-1', ['ports:', '  - target: 3000', '    published: 3000']],
      ['worker', ['ports:', '  - 9464']],
    ] as const) {
      const problems = composeProblems(readCompose(withLines(service, [...ports])));
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(
        new RegExp(`^compose.yaml: ${service} publishes .*only the proxy may publish a port`),
      );
    }
    expect(composeProblems(readCompose(withLines('garage', ['network_mode: host'])))).toEqual([
      "compose.yaml: garage uses the host's network, which publishes every port it listens on",
    ]);
  });

  it('lets the proxy publish HTTP and HTTPS only', () => {
    const caddy = composeText.replace('      - "443:443/udp"\n', '      - "443:443/udp"\n      - "2019:2019"\n');
    expect(caddy).not.toBe(composeText);
    expect(composeProblems(readCompose(caddy))).toEqual([
      'compose.yaml: the proxy caddy publishes "2019:2019"; only 80 and 443',
    ]);
  });

  it('reaches Garage through the proxy at the host presigned links name, with the key garage-init imports', () => {
    const storageUrl = new URL(serviceEnvironment('serve-1', DOT_ENV).STORAGE_URL!);
    expect(storageUrl.origin).toBe('https://files.example.test');
    expect([storageUrl.username, storageUrl.password]).toEqual(['GK0123456789abcdef01234567', 's']);
    const init = serviceEnvironment('garage-init', DOT_ENV);
    expect([init.STORAGE_ACCESS_KEY, init.STORAGE_SECRET_KEY]).toEqual([storageUrl.username, storageUrl.password]);
    const caddyfile = fs.readFileSync(path.join(root, 'deploy/Caddyfile'), 'utf8');
    expect(caddyfile).toMatch(/^\{\$STORAGE_PUBLIC_HOST\} \{\n\treverse_proxy garage:3900\n\}$/m);
  });

  it("signs with compose.yaml's STORAGE_URL for the region deploy/garage.toml gives Garage, the one it answers", async () => {
    const garageToml = fs.readFileSync(path.join(root, 'deploy/garage.toml'), 'utf8');
    const s3Region = /^s3_region = "([^"]+)"$/m.exec(garageToml)?.[1];
    expect(s3Region).toBeDefined();
    // A stand-in that answers the bucket check a presigned link waits for: the URL's host is all that changes.
    const server = http.createServer((_req, res) => res.end()).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const storageUrl = new URL(serviceEnvironment('serve-1', DOT_ENV).STORAGE_URL!);
      storageUrl.protocol = 'http:';
      storageUrl.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
      const link = new URL(await connectStorage(storageUrl.toString(), 'intake').presignedGet('a/b.pdf', 60));
      const [keyId, , region, service] = link.searchParams.get('X-Amz-Credential')!.split('/');
      expect([keyId, region, service]).toEqual(['GK0123456789abcdef01234567', s3Region, 's3']);
    } finally {
      server.close();
    }
  });
});
