import { runProcess, type ProcessResult } from './support/processes.ts';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROLE_CEILINGS } from '../contract/abilities.ts';
import { bearer, makeMember, makeTeam, startTestApp, testEnv } from './support/harness.ts';

const CLI = fileURLToPath(new URL('../cli/intake', import.meta.url));

type CliResult = ProcessResult;

/** Runs `cli/intake` as a real process against the run's database, with no stdin and a minimal environment. */
function intake(args: string[], extra: Record<string, string> = {}): Promise<CliResult> {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    ...testEnv(),
    ...extra,
  } as NodeJS.ProcessEnv;
  return runProcess(CLI, args, env);
}

/** Runs an admin command with --json and parses its output; fails with the command's stderr otherwise. */
async function intakeJson<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const res = await intake([...args, '--json']);
  expect(res.stderr, `intake ${args.join(' ')}`).toBe('');
  expect(res.code).toBe(0);
  return JSON.parse(res.stdout) as T;
}

/** A failing command: non-zero exit, nothing on stdout, one clear line on stderr and no stack trace. */
function expectCleanFailure(res: CliResult, message: RegExp) {
  expect(res.code, res.stderr).not.toBe(0);
  expect(res.stdout).toBe('');
  expect(res.stderr).toMatch(message);
  expect(res.stderr).not.toMatch(/\n\s+at /);
}

const unique = () => randomBytes(4).toString('hex');

// Spawning node is slow on a busy 2-core machine: be generous, and create fixtures in-process where the
// CLI path itself is not what a test is about.
const SLOW = { timeout: 120_000 };

const t = await startTestApp();

describe.concurrent('intake --help', SLOW, () => {
  const commands: Array<[string[], RegExp]> = [
    [[], /Usage: intake \[options\] \[command\][\s\S]*serve[\s\S]*worker[\s\S]*migrate[\s\S]*dev[\s\S]*admin/],
    [['serve'], /Usage: intake serve[\s\S]*--no-worker/],
    [['worker'], /Usage: intake worker/],
    [['migrate'], /Usage: intake migrate/],
    [['dev'], /Usage: intake dev/],
    [['admin'], /Usage: intake admin[\s\S]*team[\s\S]*user[\s\S]*token[\s\S]*plan/],
    [['admin', 'team', 'create'], /Usage: intake admin team create[\s\S]*--name <name>[\s\S]*--plan <plan>[\s\S]*--json/],
    [['admin', 'user', 'create'], /Usage: intake admin user create[\s\S]*--email[\s\S]*--team[\s\S]*--role <role>/],
    [['admin', 'token', 'create'], /Usage: intake admin token create[\s\S]*--team[\s\S]*--user[\s\S]*--name[\s\S]*--abilities <list>/],
    [['admin', 'plan', 'set'], /Usage: intake admin plan set[\s\S]*--team[\s\S]*--plan/],
  ];
  for (const [args, usage] of commands) {
    it(`intake ${[...args, '--help'].join(' ')}`, async () => {
      const res = await intake([...args, '--help']);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toMatch(usage);
    });
  }

  it('rejects an unknown command', async () => {
    const res = await intake(['serv']);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/unknown command 'serv'/);
  });
});

describe('intake admin', SLOW, () => {
  it('creates a team, an owner and a token that works with everything the role allows', async () => {
    const team = await intakeJson<{ id: string; name: string; plan: string }>(['admin', 'team', 'create', '--name', 'Acme CLI', '--plan', 'pro']);
    expect(team.id).toMatch(/^team_[0-9a-z]{26}$/);
    expect(team).toMatchObject({ name: 'Acme CLI', plan: 'pro' });

    const email = `owner-${unique()}@example.test`;
    const user = await intakeJson<{ id: string; email: string; role: string; team: string }>([
      'admin', 'user', 'create', '--email', email, '--name', 'Ada Owner', '--team', team.id, '--role', 'owner',
    ]);
    expect(user).toMatchObject({ email, role: 'owner', team: team.id });
    expect(user.id).toMatch(/^usr_/);

    const created = await intakeJson<{ id: string; token: string }>(['admin', 'token', 'create', '--team', team.id, '--user', user.id, '--name', 'ci']);
    expect(created.id).toMatch(/^tok_/);
    expect(created.token).toMatch(/^intk_[0-9A-Za-z]{40}$/);

    const me = await t.http.get('/v1/me').set(bearer(created.token));
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ role: 'owner', team: { id: team.id, plan: 'pro' }, user: { id: user.id, email } });
    expect(me.body.data.token.id).toBe(created.id);
    expect([...me.body.data.token.abilities].sort()).toEqual([...ROLE_CEILINGS.owner].sort());
    expect((await t.http.get('/v1/billing/plan').set(bearer(created.token))).status).toBe(200);
  });

  it('prints tab-separated lines without --json', async () => {
    const res = await intake(['admin', 'team', 'create', '--name', 'Plain output', '--plan', 'free']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim()).toMatch(/^team_[0-9a-z]{26}\tPlain output\tfree$/);
  });

  it('restricts a token to --abilities', async () => {
    const owner = await makeTeam(t);
    const [team, user] = [{ id: owner.teamId }, { id: owner.userId }];
    const created = await intakeJson<{ id: string; token: string; abilities: string[] }>([
      'admin', 'token', 'create', '--team', team.id, '--user', user.id, '--name', 'narrow', '--abilities', 'forms:read,tokens:read',
    ]);
    expect(created.abilities).toEqual(['forms:read', 'tokens:read']);
    const me = await t.http.get('/v1/me').set(bearer(created.token));
    expect(me.status).toBe(200);
    expect(me.body.data.token.abilities).toEqual(['forms:read', 'tokens:read']);
    expect((await t.http.get('/v1/tokens').set(bearer(created.token))).status).toBe(200);
    const billing = await t.http.get('/v1/billing/plan').set(bearer(created.token));
    expect(billing.status).toBe(403);
    expect(billing.body.error).toBe('forbidden');
  });

  it("gives a viewer's token the viewer ceiling and refuses abilities beyond it", async () => {
    const viewer = await makeMember(t, (await makeTeam(t)).teamId, 'viewer');
    const [team, user] = [{ id: viewer.teamId }, { id: viewer.userId }];
    const created = await intakeJson<{ token: string }>(['admin', 'token', 'create', '--team', team.id, '--user', user.id, '--name', 'viewer']);
    const me = await t.http.get('/v1/me').set(bearer(created.token));
    expect(me.body.data.role).toBe('viewer');
    expect([...me.body.data.token.abilities].sort()).toEqual([...ROLE_CEILINGS.viewer].sort());

    const res = await intake(['admin', 'token', 'create', '--team', team.id, '--user', user.id, '--name', 'x', '--abilities', 'forms:write']);
    expectCleanFailure(res, /viewer does not permit: forms:write/);
  });

  it('changes a plan with `plan set`, visible through the billing API', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const [team, token] = [{ id: owner.teamId }, owner.token];
    expect((await t.http.get('/v1/billing/plan').set(bearer(token))).body.data.id).toBe('pro');

    const res = await intake(['admin', 'plan', 'set', '--team', team.id, '--plan', 'scale']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim()).toBe(`${team.id}\tscale`);

    const plan = await t.http.get('/v1/billing/plan').set(bearer(token));
    expect(plan.body.data).toMatchObject({ id: 'scale', limits: { monthly_submissions: null } });
    expect((await t.http.get('/v1/billing/subscription').set(bearer(token))).body.data.plan).toBe('scale');
    expect((await t.http.get('/v1/me').set(bearer(token))).body.data.team.plan).toBe('scale');
  });
});

describe('intake admin: bad input', SLOW, () => {
  it('unknown team', async () => {
    expectCleanFailure(
      await intake(['admin', 'user', 'create', '--email', 'a@example.test', '--name', 'A', '--team', 'team_nope', '--role', 'owner']),
      /Team "team_nope" not found/,
    );
    expectCleanFailure(await intake(['admin', 'plan', 'set', '--team', 'team_nope', '--plan', 'pro']), /Team "team_nope" not found/);
    expectCleanFailure(
      await intake(['admin', 'token', 'create', '--team', 'team_nope', '--user', 'usr_nope', '--name', 'x']),
      /Team "team_nope" not found/,
    );
  });

  it('user not in the team', async () => {
    const team = { id: (await makeTeam(t)).teamId };
    expectCleanFailure(
      await intake(['admin', 'token', 'create', '--team', team.id, '--user', 'usr_nope', '--name', 'x']),
      /User "usr_nope" is not a member of team/,
    );
  });

  it('bad role', async () => {
    const team = { id: (await makeTeam(t)).teamId };
    expectCleanFailure(
      await intake(['admin', 'user', 'create', '--email', 'b@example.test', '--name', 'B', '--team', team.id, '--role', 'superuser']),
      /Unknown role "superuser": use one of owner, admin, editor, viewer/,
    );
  });

  it('bad ability', async () => {
    const owner = await makeTeam(t);
    const team = { id: owner.teamId };
    const user = { id: owner.userId };
    expectCleanFailure(
      await intake(['admin', 'token', 'create', '--team', team.id, '--user', user.id, '--name', 'x', '--abilities', 'forms:read,forms:destroy']),
      /Unknown abilities: forms:destroy/,
    );
  });

  it('unknown plan', async () => {
    expectCleanFailure(await intake(['admin', 'team', 'create', '--name', 'X', '--plan', 'enterprise']), /unknown plan "enterprise": use one of free, pro, team, scale/);
    const team = { id: (await makeTeam(t)).teamId };
    expectCleanFailure(await intake(['admin', 'plan', 'set', '--team', team.id, '--plan', 'gold']), /unknown plan "gold"/);
  });

  it('bad e-mail and missing options', async () => {
    const team = { id: (await makeTeam(t)).teamId };
    expectCleanFailure(
      await intake(['admin', 'user', 'create', '--email', 'not-an-email', '--name', 'C', '--team', team.id, '--role', 'owner']),
      /"not-an-email" is not a valid e-mail address/,
    );
    const missing = await intake(['admin', 'team', 'create', '--plan', 'pro']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/required option '--name <name>' not specified/);
  });
});

describe('README', SLOW, () => {
  const readme = fs.existsSync(new URL('../README.md', import.meta.url)) ? fs.readFileSync(new URL('../README.md', import.meta.url), 'utf8') : '';

  it('documents every environment variable server/config.ts reads', () => {
    const config = fs.readFileSync(new URL('../server/config.ts', import.meta.url), 'utf8');
    const schema = config.slice(config.indexOf('const Env = z.object({'), config.indexOf('});', config.indexOf('const Env = z.object({')));
    const vars = [...schema.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);
    expect(vars.length).toBeGreaterThan(5);
    const table = new Set([...readme.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]!));
    expect(vars.filter((v) => !table.has(v)), 'variables missing from the README configuration table').toEqual([]);
  });

  it('documents every CLI command', async () => {
    const res = await intake(['--help']);
    const commands = [...res.stdout.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
    expect(commands.length).toBeGreaterThanOrEqual(5);
    for (const command of commands) expect(readme).toContain(`cli/intake ${command}`);
  });
});
