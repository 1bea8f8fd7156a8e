import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { composeProblems } from '../../scripts/check-deploy.ts';
import { readCompose, serviceEnvironment } from '../../scripts/deploy-files.ts';

/** What compose.yaml lets reach the host's network (scripts/check-deploy.ts, also run by make check). */
const root = path.resolve(import.meta.dirname, '..', '..');
const composeText = fs.readFileSync(path.join(root, 'compose.yaml'), 'utf8');

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
      ['minio', ['ports:', '  - "9000:9000"']],
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
    expect(composeProblems(readCompose(withLines('minio', ['network_mode: host'])))).toEqual([
      "compose.yaml: minio uses the host's network, which publishes every port it listens on",
    ]);
  });

  it('lets the proxy publish HTTP and HTTPS only', () => {
    const caddy = composeText.replace('      - "443:443/udp"\n', '      - "443:443/udp"\n      - "2019:2019"\n');
    expect(caddy).not.toBe(composeText);
    expect(composeProblems(readCompose(caddy))).toEqual([
      'compose.yaml: the proxy caddy publishes "2019:2019"; only 80 and 443',
    ]);
  });

  it('reaches MinIO through the proxy at the host presigned links name', () => {
    const env = serviceEnvironment('serve-1', {
      INTAKE_DOMAIN: 'forms.example.test',
      INTAKE_SECRET_KEY: 'k',
      POSTGRES_PASSWORD: 'p',
      STORAGE_SECRET_KEY: 's',
      STORAGE_PUBLIC_HOST: 'files.example.test',
      SMTP_URL: 'smtp://localhost',
    });
    expect(new URL(env.STORAGE_URL!).origin).toBe('https://files.example.test');
    const caddyfile = fs.readFileSync(path.join(root, 'deploy/Caddyfile'), 'utf8');
    expect(caddyfile).toMatch(/^\{\$STORAGE_PUBLIC_HOST\} \{\n\treverse_proxy minio:9000\n\}$/m);
  });
});
