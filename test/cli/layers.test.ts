import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { forwardId, generateSecret, signatureHeaders } from '../../cli/forward-signing.ts';
import { checkLayers, importGraph } from '../../scripts/check-layers.ts';
import { verifyWebhook } from '../../sdk/index.ts';
import { signatureHeaders as deliveryHeaders } from '../../server/infra/outbound/signing.ts';

/** Issue 26: the CLI reaches Intake's API only through the SDK; only the commands that run or administer Intake import server/. */
const root = path.resolve(import.meta.dirname, '..', '..');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'intake-cli-layers-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe('the CLI and server/', () => {
  it('the API commands, listen and their modules import nothing from server/ (only server-commands, admin and dev do)', () => {
    const graph = importGraph(root, ['cli']);
    const reaching = [...graph]
      .filter(([, targets]) => targets.some((t) => t.startsWith('server/')))
      .map(([file]) => file)
      .sort();
    expect(reaching).toEqual(['cli/admin.ts', 'cli/dev.ts', 'cli/server-commands.ts']);
  });

  it('scripts/check-layers.ts refuses a CLI module that imports server code, and lets the server commands do it', () => {
    const dir = path.join(scratch, 'cli-tree');
    const modules: Record<string, string> = {
      'cli/listen.ts':
        "import { newId } from '../server/domain/ids.ts';\nimport type { Runtime } from '../server/main.ts';",
      'cli/api.ts': "import { createClient } from '../sdk/index.ts';",
      'cli/server-commands.ts': "const server = () => import('../server/main.ts');",
      'cli/admin.ts': "import type { AppContext } from '../server/context.ts';",
      'sdk/index.ts': '',
      'server/domain/ids.ts': '',
      'server/main.ts': '',
      'server/context.ts': '',
    };
    for (const [file, source] of Object.entries(modules)) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), source);
    }
    const report = checkLayers(dir, { cycles: [], upward: [] });
    expect(report.upward.map((u) => `${u.from} → ${u.to}`).sort()).toEqual([
      'cli/listen.ts → server/domain/ids.ts',
      'cli/listen.ts → server/main.ts',
    ]);
    expect(report.upward[0]!.rule).toMatch(/through the SDK/);
  });
});

describe('`intake listen --forward-to` signs as a delivery is signed', () => {
  const body = JSON.stringify({ type: 'submission.created', submission_id: 'subm_1', payload: { name: 'Zoë 😀' } });

  it('byte for byte the headers the server signs a delivery with', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const id = forwardId();
    expect(id).toMatch(/^whd_[0-9a-z]{26}$/);
    expect(signatureHeaders(secret, id, 1_760_000_000, body)).toEqual(
      deliveryHeaders([secret], id, 1_760_000_000, body),
    );
  });

  it("verifies with the SDK's verifyWebhook and with the standardwebhooks package", () => {
    const secret = generateSecret();
    const ts = Math.floor(Date.now() / 1000);
    const headers = Object.fromEntries(
      Object.entries(signatureHeaders(secret, forwardId(), ts, body)).map(([k, v]) => [k.toLowerCase(), v]),
    );
    expect(verifyWebhook(secret, headers, body)).toEqual(JSON.parse(body));
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => verifyWebhook(generateSecret(), headers, body)).toThrow();
  });
});
