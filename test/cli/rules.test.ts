import { describe, expect, it } from 'vitest';
import { cliHome, runCli, userEnv } from '../support/cli.ts';
import { makePublishedForm } from '../support/forms.ts';
import { makeTeam, type TestMember } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';

/** Rules from the CLI (docs/rules.md): the real binary against a live server. */

const t = await startLiveTestApp();
const home = cliHome('intake-cli-rules-');
const SLOW = { timeout: 120_000 };

function cli(member: TestMember, ...args: string[]) {
  return runCli(args, userEnv(home, { url: t.baseUrl, token: member.token }));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function json(member: TestMember, ...args: string[]): Promise<any> {
  const res = await cli(member, ...args, '--json');
  expect(res.code, `intake ${args.join(' ')}: ${res.stderr}`).toBe(0);
  return JSON.parse(res.stdout);
}

describe('intake rules', () => {
  it('creates, orders, dry-runs and deletes rules; a bad condition exits with the field named', SLOW, async () => {
    const owner = await makeTeam(t, { plan: 'team' });
    const form = (await makePublishedForm(t, owner)).id;
    const sales = await json(
      owner,
      'rules',
      'create',
      '--form',
      form,
      '--name',
      'Sales',
      '--when',
      '{"all":[{"field":"department","op":"equals","value":"sales"}]}',
      '--actions',
      '[{"type":"tag","add":["sales"]}]',
    );
    expect(sales).toMatchObject({ name: 'Sales', position: 1, enabled: true });
    const vip = await json(
      owner,
      'rules',
      'create',
      '--form',
      form,
      '--name',
      'VIP domain',
      '--when',
      '{"any":[{"field":"email","op":"ends_with","value":"@vip.example"}]}',
      '--actions',
      '[{"type":"tag","add":["vip"]},{"type":"skip_autoresponder"}]',
      '--stop',
    );
    expect(vip).toMatchObject({ position: 2, stop: true });

    const ordered = await json(owner, 'rules', 'order', '--form', form, '--ids', `${vip.id},${sales.id}`);
    expect(ordered.map((r: { name: string }) => r.name)).toEqual(['VIP domain', 'Sales']);

    const run = await json(
      owner,
      'rules',
      'test',
      '--form',
      form,
      '--payload',
      '{"department":"Sales","email":"a@vip.example"}',
    );
    expect(run.fired).toEqual([vip.id]);
    expect(run.trace[1]).toMatchObject({ rule_id: sales.id, holds: true, fired: false, skipped: 'stopped' });

    const table = await cli(owner, 'rules', 'list', '--form', form);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('VIP domain');

    const bad = await cli(
      owner,
      'rules',
      'create',
      '--form',
      form,
      '--name',
      'Bad',
      '--when',
      '{"all":[{"field":"email","op":"matches","value":"(open"}]}',
      '--actions',
      '[{"type":"tag","add":["x"]}]',
    );
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('when.all.0.value');

    const deleted = await cli(owner, 'rules', 'delete', sales.id, '--form', form);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect((await json(owner, 'rules', 'list', '--form', form)).map((r: { id: string }) => r.id)).toEqual([vip.id]);
  });
});
