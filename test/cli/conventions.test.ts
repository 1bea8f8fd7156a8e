import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../cli/api.ts';
import { buildProgram } from '../../cli/program.ts';
import { createClient } from '../../sdk/index.ts';
import { cliHome, runCli, userEnv } from '../support/cli.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, type TestMember } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';

/** DESIGN.md "CLI conventions": `--form`/`--webhook` scope a command, every command says what it does. */

const t = await startLiveTestApp({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' });
const home = cliHome('intake-cli-conventions-');

function cli(member: TestMember | null, ...args: string[]) {
  return runCli(args, userEnv(home, member ? { url: t.baseUrl, token: member.token } : undefined));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function json(member: TestMember, ...args: string[]): Promise<any> {
  const res = await cli(member, ...args, '--json');
  expect(res.code, `intake ${args.join(' ')}: ${res.stderr}`).toBe(0);
  return JSON.parse(res.stdout);
}

const api = async (member: TestMember, p: string) => (await t.http.get(p).set(bearer(member.token))).body.data;

const program = await buildProgram();
const fullName = (cmd: Command): string => (cmd.parent ? `${fullName(cmd.parent)} ${cmd.name()}` : cmd.name());
const everyCommand = (cmd: Command): Command[] => cmd.commands.flatMap((sub) => [sub, ...everyCommand(sub)]);
/** A command's `--help` as the binary prints it, examples included. */
function helpOf(cmd: Command): string {
  let text = '';
  cmd.configureOutput({ writeOut: (s) => void (text += s), getOutHasColors: () => false });
  cmd.outputHelp();
  return text;
}

describe('every command and group says what it does', () => {
  it('has a description that is neither empty nor a placeholder (its name or its route key)', () => {
    const commands = everyCommand(program);
    expect(commands.length).toBeGreaterThan(50);
    const routeKeys = new Set(Object.keys(COMMANDS).map((k) => k.toLowerCase()));
    const placeholders = commands.filter((cmd) => {
      const description = cmd.description().split('  [')[0]!.trim().toLowerCase();
      return (
        description.length < 10 ||
        description === cmd.name().toLowerCase() ||
        description === fullName(cmd).toLowerCase() ||
        routeKeys.has(description)
      );
    });
    expect(placeholders.map((cmd) => `${fullName(cmd)}: "${cmd.description()}"`)).toEqual([]);
  });

  it('`intake erasure --help` describes the group', async () => {
    const res = await cli(null, 'erasure', '--help');
    expect(res.code).toBe(0);
    expect(res.stdout.split('\n')[2]).toMatch(/^Erase one person's data/);
  });
});

describe('--form and --webhook', () => {
  it('usage lines and options show --form/--webhook on every form- or webhook-scoped command', () => {
    const scoped = everyCommand(program).filter((cmd) =>
      cmd.options.some((o) => o.long === '--form' || o.long === '--webhook'),
    );
    expect(scoped.map(fullName)).toEqual(
      expect.arrayContaining([
        'intake submissions list',
        'intake submissions get',
        'intake webhooks list',
        'intake deliveries list',
        'intake webhooks rotate-secret',
      ]),
    );
    for (const cmd of scoped) {
      for (const o of cmd.options.filter((o) => o.long === '--form' || o.long === '--webhook')) {
        if (o.description.includes('(frm_…)') || o.description.includes('(wh_…)'))
          expect(cmd.usage(), fullName(cmd)).toContain(`${o.long} <id>`);
      }
    }
    // Positional ids are only the record a command acts on.
    expect(
      helpOf(program.commands.find((c) => c.name() === 'submissions')!.commands.find((c) => c.name() === 'get')!),
    ).toMatch(/Usage: intake submissions get --form <id> \[options\] <submission>/);
    expect(
      helpOf(program.commands.find((c) => c.name() === 'deliveries')!.commands.find((c) => c.name() === 'resend')!),
    ).toMatch(/--form <id> --webhook <id> \[options\] <delivery>/);
  });

  it('every example names a form with --form and a webhook with --webhook, except where it is the record acted on', () => {
    const examples = everyCommand(program)
      .flatMap((cmd) => helpOf(cmd).split('\n'))
      .map((line) => line.trim())
      .filter((line) => line.startsWith('intake '));
    expect(examples.length).toBeGreaterThan(15);
    const wrong = examples.filter((line) => {
      const [, group] = line.split(' ');
      const formPositional = /(^|\s)frm_/.test(line.replace(/--form frm_/g, '')) && group !== 'forms';
      const webhookPositional = /(^|\s)wh_/.test(line.replace(/--webhook wh_/g, '')) && group !== 'webhooks';
      return formPositional || webhookPositional;
    });
    expect(wrong).toEqual([]);
  });

  it(
    'the API commands take the form and webhook as options, the record positionally; the old positional form still runs',
    { timeout: 60_000 },
    async () => {
      const owner = await makeTeam(t, { plan: 'team' });
      const form = await makePublishedForm(t, owner);
      const posted = await t.http
        .post(`/f/${form.id}`)
        .set('Accept', 'application/json')
        .field('email', 'ada@example.com')
        .attach('cv', Buffer.from('%PDF-1.4 cv'), { filename: 'cv.pdf' });
      const submission = posted.body.id as string;
      expect(await json(owner, 'submissions', 'list', '--form', form.id, '--folder', 'all')).toEqual(
        await api(owner, `/v1/forms/${form.id}/submissions?folder=all`),
      );
      const detail = await json(owner, 'submissions', 'get', submission, '--form', form.id);
      expect(detail.id).toBe(submission);
      expect(await json(owner, 'submissions', 'get', form.id, submission)).toMatchObject({ id: submission }); // as before
      expect(await json(owner, 'submissions', 'get', form.id, submission, '--form', form.id)).toMatchObject({
        id: submission,
      }); // both, agreeing

      const out = path.join(home, 'cv.pdf');
      const download = await cli(
        owner,
        'submissions',
        'download',
        submission,
        detail.files[0].id,
        '--form',
        form.id,
        '-o',
        out,
      );
      expect(download.code, download.stderr).toBe(0);
      expect(fs.readFileSync(out, 'utf8')).toBe('%PDF-1.4 cv');

      const webhook = (
        await json(
          owner,
          'webhooks',
          'create',
          '--form',
          form.id,
          '--label',
          'CRM',
          '--url',
          'https://127.0.0.1:9/hook',
        )
      ).id as string;
      expect(await json(owner, 'webhooks', 'get', webhook, '--form', form.id)).toEqual(
        await api(owner, `/v1/forms/${form.id}/webhooks/${webhook}`),
      );
      expect(await json(owner, 'deliveries', 'list', '--form', form.id, '--webhook', webhook)).toEqual(
        await api(owner, `/v1/forms/${form.id}/webhooks/${webhook}/deliveries`),
      );
      expect(await json(owner, 'deliveries', 'list', form.id, webhook)).toEqual(
        await api(owner, `/v1/forms/${form.id}/webhooks/${webhook}/deliveries`),
      );
      const rotated = await cli(owner, 'webhooks', 'rotate-secret', webhook, '--form', form.id);
      expect(rotated.code, rotated.stderr).toBe(0);
      expect(rotated.stdout).toMatch(/secret \(shown once\): whsec_/);
    },
  );

  it('a form given both ways with different values, or not at all, is a usage error (exit 2) that sends nothing', async () => {
    const owner = await makeTeam(t, { plan: 'team' });
    const form = await makePublishedForm(t, owner);
    const other = await makePublishedForm(t, owner);
    const twice = await cli(owner, 'submissions', 'list', form.id, '--form', other.id);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain(`the form is given twice, as the argument ${form.id} and as --form ${other.id}`);
    const twiceWebhook = await cli(owner, 'deliveries', 'list', form.id, 'wh_a', '--webhook', 'wh_b');
    expect(twiceWebhook.code).toBe(2);
    expect(twiceWebhook.stderr).toContain('the webhook is given twice');
    const missing = await cli(owner, 'deliveries', 'list', '--form', form.id);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--webhook <id>' not specified");
    const tooMany = await cli(owner, 'submissions', 'get', 'subm_a', 'subm_b', '--form', form.id);
    expect(tooMany.code).toBe(2);
  });
});

describe('the SDK carries every call the CLI makes', () => {
  it('client.downloadFile streams an uploaded file (the API redirects to signed storage)', async () => {
    const owner = await makeTeam(t, { plan: 'team' });
    const form = await makePublishedForm(t, owner);
    const posted = await t.http
      .post(`/f/${form.id}`)
      .set('Accept', 'application/json')
      .field('email', 'ada@example.com')
      .attach('cv', Buffer.from('%PDF-1.4 sdk'), { filename: 'cv.pdf' });
    const client = createClient({ baseUrl: t.baseUrl, token: owner.token });
    const detail = await client.ok.getSubmission({ params: { form: form.id, submission: posted.body.id } });
    const stream = await client.downloadFile({
      params: { form: form.id, submission: posted.body.id, file: detail.data.files![0]!.id },
    });
    expect(Buffer.from(await new Response(stream).arrayBuffer()).toString()).toBe('%PDF-1.4 sdk');
    await expect(
      client.downloadFile({ params: { form: form.id, submission: posted.body.id, file: `file_${'0'.repeat(26)}` } }),
    ).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });
});
