import fs from 'node:fs';
import path from 'node:path';
import { isAppRoute } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../cli/api.ts';
import { contract } from '../../contract/index.ts';
import { runReplayJob } from '../../server/domain/delivery/replay.ts';
import { newId } from '../../server/domain/shared/ids.ts';
import { cliHome, INTAKE, runCli, userEnv } from '../support/cli.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, type TestMember } from '../support/harness.ts';
import { startLiveTestApp } from '../support/live-server.ts';
import { runProcess } from '../support/processes.ts';

// Private webhook URLs allowed: webhooks are created without a DNS lookup (no internet here).
const t = await startLiveTestApp({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' });
const home = cliHome();

/** The real CLI as a child process, with no stdin, talking to the live server. */
function cli(member: TestMember | null, ...args: string[]) {
  return runCli(args, userEnv(home, member ? { url: t.baseUrl, token: member.token } : undefined));
}

/** `intake --json …` parsed, failing with the CLI's stderr. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function json(member: TestMember, ...args: string[]): Promise<any> {
  const res = await cli(member, ...args, '--json');
  expect(res.code, `intake ${args.join(' ')}: ${res.stderr}`).toBe(0);
  return JSON.parse(res.stdout);
}

const api = async (member: TestMember, p: string) => (await t.http.get(p).set(bearer(member.token))).body.data;

describe('intake API commands', () => {
  it('has a command for every contract route', () => {
    const routes = Object.entries(contract)
      .filter(([, r]) => isAppRoute(r))
      .map(([k]) => k);
    expect(routes.filter((k) => !COMMANDS[k])).toEqual([]);
  });

  it('every command, in JSON mode, prints exactly the API data', { timeout: 120_000 }, async () => {
    const owner = await makeTeam(t, { plan: 'team' });
    expect(await json(owner, 'me')).toEqual(await api(owner, '/v1/me'));
    for (const [verb, p] of [
      ['team', 'team'],
      ['plan', 'plan'],
      ['usage', 'usage'],
      ['subscription', 'subscription'],
      ['invoices', 'invoices'],
    ]) {
      expect(await json(owner, 'billing', verb!)).toEqual(await api(owner, `/v1/billing/${p}`));
    }
    const form = (
      await json(owner, 'forms', 'create', '--name', 'CLI form', '--notification-emails', 'a@example.com,b@example.com')
    ).id as string;
    expect(await api(owner, `/v1/forms/${form}`)).toMatchObject({
      name: 'CLI form',
      notification_emails: ['a@example.com', 'b@example.com'],
    });
    await json(owner, 'forms', 'update', form, '--settings', '{"ai_threshold":0.9}');
    expect((await api(owner, `/v1/forms/${form}`)).settings.ai_threshold).toBe(0.9);
    await json(owner, 'forms', 'publish', form);
    expect(await json(owner, 'forms', 'get', form)).toEqual(await api(owner, `/v1/forms/${form}`));
    expect(await json(owner, 'forms', 'list', '--per-page', '5')).toEqual(await api(owner, '/v1/forms?per_page=5'));

    const posted = await t.http
      .post(`/f/${form}`)
      .set('Accept', 'application/json')
      .field('email', 'ada@example.com')
      .attach('cv', Buffer.from('%PDF-1.4 cv'), { filename: 'cv.pdf' });
    const second = await t.http
      .post(`/f/${form}`)
      .set('Accept', 'application/json')
      .type('form')
      .send('email=bob@example.com');
    const submission = posted.body.id as string;
    expect(await json(owner, 'forms', 'fields', form)).toEqual(await api(owner, `/v1/forms/${form}/fields`));
    expect(await json(owner, 'submissions', 'list', form, '--folder', 'all')).toEqual(
      await api(owner, `/v1/forms/${form}/submissions?folder=all`),
    );
    const detail = await json(owner, 'submissions', 'get', form, submission);
    expect(detail.id).toBe(submission);
    await json(owner, 'submissions', 'update', form, submission, '--payload', '{"note":"called back"}');
    expect((await api(owner, `/v1/forms/${form}/submissions/${submission}`)).payload).toMatchObject({
      note: 'called back',
    });
    const out = path.join(home, 'cv.pdf');
    expect((await cli(owner, 'submissions', 'download', form, submission, detail.files[0].id, '-o', out)).code).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).toBe('%PDF-1.4 cv');
    const csv = await cli(owner, 'submissions', 'export', form, '--format', 'csv');
    // File links are signed with an expiry counted from the request: compare all but those two values.
    const unsigned = (text: string) => text.replace(/expires=\d+&signature=[0-9a-f]+/g, 'expires=…&signature=…');
    expect(unsigned(csv.stdout)).toBe(
      unsigned(
        (await t.http.get(`/v1/forms/${form}/submissions/export?format=csv`).set(bearer(owner.token)).buffer(true))
          .text,
      ),
    );
    expect(csv.stdout).toMatch(/expires=\d+&signature=[0-9a-f]{64}/);

    const hook = await cli(
      owner,
      'webhooks',
      'create',
      form,
      '--label',
      'CRM',
      '--url',
      'https://127.0.0.1:9/hook',
      '--json',
    );
    const webhook = JSON.parse(hook.stdout).id as string;
    await json(owner, 'webhooks', 'update', form, webhook, '--no-active');
    expect((await api(owner, `/v1/forms/${form}/webhooks/${webhook}`)).active).toBe(false);
    await json(owner, 'webhooks', 'update', form, webhook, '--active');
    expect(await json(owner, 'webhooks', 'get', form, webhook)).toEqual(
      await api(owner, `/v1/forms/${form}/webhooks/${webhook}`),
    );
    expect(await json(owner, 'webhooks', 'list', form)).toEqual(await api(owner, `/v1/forms/${form}/webhooks`));
    const rotated = await cli(owner, 'webhooks', 'rotate-secret', form, webhook);
    expect(rotated.stdout).toMatch(/secret \(shown once\): whsec_/);
    const delivery = newId('whd');
    await t.ctx.db.query(
      `insert into deliveries (id, team_id, webhook_id, event, submission_id, request_body, status, attempts)
       values ($1, $2, $3, 'submission.created', $4, '{"type":"submission.created"}', 'dead', 7)`,
      [delivery, owner.teamId, webhook, submission],
    );
    expect(await json(owner, 'deliveries', 'list', form, webhook)).toEqual(
      await api(owner, `/v1/forms/${form}/webhooks/${webhook}/deliveries`),
    );
    expect(await json(owner, 'deliveries', 'resend', form, webhook, delivery)).toMatchObject({
      ok: true,
      delivery_id: expect.any(String),
    });
    expect(await json(owner, 'deliveries', 'replay', delivery)).toMatchObject({ status: 'queued' });
    const replay = await json(owner, 'webhooks', 'replay', webhook, '--status', 'dead');
    expect(await json(owner, 'jobs', 'get', replay.job_id)).toEqual(await api(owner, `/v1/jobs/${replay.job_id}`));
    // --wait: the CLI polls until the job has finished — run here by what a worker runs (this server has none).
    // (No --status: the submission's latest delivery is now a pending replay, not dead.)
    const waiting = json(owner, 'webhooks', 'replay', webhook, '--wait');
    const queued = async () =>
      (
        await t.ctx.db.query<{ id: string }>(
          `select id from jobs where team_id = $1 and status = 'queued' and id <> $2`,
          [owner.teamId, replay.job_id],
        )
      ).rows;
    for (let i = 0; i < 100 && !(await queued()).length; i++) await new Promise((r) => setTimeout(r, 100));
    for (const { id } of await queued()) await runReplayJob(t.ctx, id);
    expect(await waiting).toMatchObject({ type: 'webhook_replay', status: 'succeeded', total: 1, done: 1 });

    expect(await json(owner, 'insights', 'get')).toBeNull();
    expect(await json(owner, 'insights', 'regenerate')).toMatchObject({ ok: true });
    const token = await json(owner, 'tokens', 'create', '--name', 'ci', '--abilities', 'forms:read,submissions:read');
    expect(token.abilities).toEqual(['forms:read', 'submissions:read']);
    expect(await json(owner, 'tokens', 'list')).toEqual(await api(owner, '/v1/tokens'));
    await json(owner, 'tokens', 'revoke', token.id);

    await json(owner, 'submissions', 'bulk', form, '--ids', submission, '--action', 'mark_spam');
    await json(owner, 'submissions', 'delete', form, second.body.id);
    await json(owner, 'forms', 'prune-fields', form);
    await json(owner, 'webhooks', 'delete', form, webhook);
    await json(owner, 'forms', 'unpublish', form);
    await json(owner, 'forms', 'delete', form);
    await json(owner, 'forms', 'restore', form);
    await json(owner, 'forms', 'delete', form);
    await json(owner, 'forms', 'erase', form);
    expect((await t.http.get(`/v1/forms/${form}`).set(bearer(owner.token))).status).toBe(404);
  });

  it('exit codes by class, with the API message and a hint', async () => {
    const viewer = await makeTeam(t, { plan: 'free', role: 'viewer' });
    const owner = await makeTeam(t, { plan: 'team' });
    const form = await makePublishedForm(t, owner);
    const notFound = await cli(owner, 'forms', 'get', newId('frm'));
    expect(notFound.code).toBe(4);
    expect(notFound.stderr).toMatch(/Form not found.*404 not_found/);
    expect(notFound.stderr).toMatch(/hint:/);
    const denied = await cli(viewer, 'forms', 'create', '--name', 'x');
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain('forms:write');
    expect((await cli(null, 'forms', 'list')).code).toBe(2); // not logged in
    expect((await cli(owner, 'forms', 'create')).code).toBe(2); // missing --name
    expect((await cli(owner, 'submissions', 'list', form.id, '--per-page', 'lots')).code).toBe(2);
    const invalid = await cli(owner, 'submissions', 'list', form.id, '--since', '2024-02-30');
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/since/);
    await cli(owner, 'insights', 'regenerate');
    const locked = await cli(owner, 'insights', 'regenerate');
    expect(locked.code).toBe(5);
    expect(locked.stderr).toMatch(/retry after \d+ s/);
    const bad = await runCli(['me'], userEnv(home, { url: t.baseUrl, token: `intk_${'x'.repeat(40)}` }));
    expect(bad.code).toBe(3);
  });

  it('login saves a profile (mode 0600) the commands use; logout forgets it', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const login = await cli(null, 'login', '--url', t.baseUrl, '--token', owner.token, '--profile', 'work');
    expect(login.code, login.stderr).toBe(0);
    const file = path.join(home, '.config', 'intake', 'config.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const me = await cli(null, 'me', '--json');
    expect(JSON.parse(me.stdout).team.id).toBe(owner.teamId);
    expect(JSON.parse((await cli(null, 'me', '--json', '--profile', 'work')).stdout).team.id).toBe(owner.teamId);
    expect((await cli(null, 'me', '--profile', 'nope')).code).toBe(2);
    expect((await cli(null, 'logout')).code).toBe(0);
    expect((await cli(null, 'me')).code).toBe(2);
    const wrong = await cli(null, 'login', '--url', t.baseUrl, '--token', `intk_${'y'.repeat(40)}`);
    expect(wrong.code).toBe(3);
  });

  it('human output: a plain table when piped or with NO_COLOR, colour and relative times on a terminal', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    for (const name of ['Alpha', 'Beta']) await json(owner, 'forms', 'create', '--name', name);
    const piped = await cli(owner, 'forms', 'list');
    const [header, ...rows] = piped.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+NAME/);
    expect(rows).toHaveLength(2);
    expect(piped.stdout).not.toContain('\u001b[');
    expect(rows[0]).toMatch(/Beta.*(ago|now)/); // timestamps read relative

    // A pseudo-terminal (util-linux `script`): colour on; NO_COLOR turns it off again.
    const env = `INTAKE_URL=${t.baseUrl} INTAKE_TOKEN=${owner.token} HOME=${home} COLUMNS=200`;
    const tty = await runProcess('script', ['-qec', `env ${env} ${INTAKE} forms list`, '/dev/null'], {
      PATH: process.env.PATH,
      TERM: 'xterm',
    });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toContain('\u001b[1mID');
    const noColour = await runProcess('script', ['-qec', `env ${env} NO_COLOR=1 ${INTAKE} forms list`, '/dev/null'], {
      PATH: process.env.PATH,
      TERM: 'xterm',
    });
    expect(noColour.stdout).not.toContain('\u001b[1m');
    expect(noColour.stdout).toMatch(/Alpha/);
  });

  it('export to a file on a terminal shows progress (rows, bytes, rate); piped it streams to stdout', async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const form = await makePublishedForm(t, owner);
    await t.ctx.db.query(
      `insert into submissions (id, team_id, form_id, status, payload)
       select 'subm_' || substr(md5(random()::text || g), 1, 26), $1, $2, 'processed', jsonb_build_object('email', 'p' || g || '@example.com')
         from generate_series(1, 2000) g`,
      [owner.teamId, form.id],
    );
    const file = path.join(home, 'export.csv');
    const env = `INTAKE_URL=${t.baseUrl} INTAKE_TOKEN=${owner.token} HOME=${home}`;
    const tty = await runProcess(
      'script',
      ['-qec', `env ${env} ${INTAKE} submissions export ${form.id} -o ${file}`, '/dev/null'],
      { PATH: process.env.PATH, TERM: 'xterm' },
    );
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/2,001 rows, [\d.]+ KB written to/);
    expect(fs.readFileSync(file, 'utf8').trimEnd().split('\n')).toHaveLength(2001);
    const piped = await cli(owner, 'submissions', 'export', form.id);
    expect(piped.stdout.trimEnd().split('\n')).toHaveLength(2001);
    expect(piped.stderr).toBe('');
  });

  it('completion scripts for bash and zsh complete commands and verbs', async () => {
    const script = (await cli(null, 'completion', 'bash')).stdout;
    const probe = `${script}\nCOMP_WORDS=(intake forms ""); COMP_CWORD=2; _intake; echo "\${COMPREPLY[@]}"`;
    const res = await runProcess('bash', ['-c', probe], { PATH: process.env.PATH });
    expect(res.stdout.trim().split(' ')).toEqual(expect.arrayContaining(['list', 'create', 'publish', 'erase']));
    expect((await cli(null, 'completion', 'zsh')).stdout).toContain('bashcompinit');
    expect((await cli(null, 'completion', 'fish')).code).toBe(2);
  });
});
