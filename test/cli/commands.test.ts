import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROLE_CEILINGS } from '../../contract/abilities.ts';
import { clusterDir } from '../../server/infra/db/embedded-postgres.ts';
import { issueToken } from '../../server/domain/accounts/tokens.ts';
import { addMember } from '../../server/domain/accounts/users.ts';
import { runCli, shellEnv } from '../support/cli.ts';
import { bearer, makeMember, makeTeam, makeToken, startTestApp, testEnv } from '../support/harness.ts';
import type { ProcessResult } from '../support/processes.ts';

type CliResult = ProcessResult;

/** Runs `cli/intake` as a real process against the run's database, with no stdin and a minimal environment. */
function intake(args: string[], extra: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args, shellEnv({ ...testEnv(), ...extra }));
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
    [
      ['admin', 'team', 'create'],
      /Usage: intake admin team create[\s\S]*--name <name>[\s\S]*--plan <plan>[\s\S]*--json/,
    ],
    [['admin', 'user', 'create'], /Usage: intake admin user create[\s\S]*--email[\s\S]*--team[\s\S]*--role <role>/],
    [
      ['admin', 'token', 'create'],
      /Usage: intake admin token create[\s\S]*--team[\s\S]*--user[\s\S]*--name[\s\S]*--abilities <list>[\s\S]*--expires-at <instant>/,
    ],
    [['admin', 'plan', 'set'], /Usage: intake admin plan set[\s\S]*--team[\s\S]*--plan/],
    [['admin', 'team'], /Usage: intake admin team[\s\S]*create[\s\S]*list[\s\S]*show/],
    [['admin', 'team', 'list'], /Usage: intake admin team list[\s\S]*--json/],
    [['admin', 'team', 'show'], /Usage: intake admin team show \[options\] <id>[\s\S]*--json/],
    [['admin', 'user', 'list'], /Usage: intake admin user list[\s\S]*--team <team>/],
    [['admin', 'user', 'remove'], /Usage: intake admin user remove[\s\S]*--team <team>[\s\S]*--user <user>/],
    [['admin', 'token', 'list'], /Usage: intake admin token list[\s\S]*--team <team>[\s\S]*--user <user>/],
    [['admin', 'token', 'revoke'], /Usage: intake admin token revoke \[options\] <token-id>/],
  ];
  for (const [args, usage] of commands) {
    it(`intake ${[...args, '--help'].join(' ')}`, async () => {
      const res = await intake([...args, '--help']);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toMatch(usage);
    });
  }

  it('prints the version from package.json, and only that', async () => {
    const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-V']) {
      const res = await intake([flag]);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toBe(`${version}\n`);
      expect(res.stderr).toBe('');
    }
  });

  it('rejects an unknown command', async () => {
    const res = await intake(['serv']);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/unknown command 'serv'/);
  });
});

describe('intake admin', SLOW, () => {
  it('creates a team, an owner and a token that works with everything the role allows', async () => {
    const team = await intakeJson<{ id: string; name: string; plan: string }>([
      'admin',
      'team',
      'create',
      '--name',
      'Acme CLI',
      '--plan',
      'pro',
    ]);
    expect(team.id).toMatch(/^team_[0-9a-z]{26}$/);
    expect(team).toMatchObject({ name: 'Acme CLI', plan: 'pro' });

    const email = `owner-${unique()}@example.test`;
    const user = await intakeJson<{ id: string; email: string; role: string; team: string }>([
      'admin',
      'user',
      'create',
      '--email',
      email,
      '--name',
      'Ada Owner',
      '--team',
      team.id,
      '--role',
      'owner',
    ]);
    expect(user).toMatchObject({ email, role: 'owner', team: team.id });
    expect(user.id).toMatch(/^usr_/);

    const created = await intakeJson<{ id: string; token: string }>([
      'admin',
      'token',
      'create',
      '--team',
      team.id,
      '--user',
      user.id,
      '--name',
      'ci',
    ]);
    expect(created.id).toMatch(/^tok_/);
    expect(created.token).toMatch(/^intk_[0-9A-Za-z]{40}$/);

    const me = await t.http.get('/v1/me').set(bearer(created.token));
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({
      role: 'owner',
      team: { id: team.id, plan: 'pro' },
      user: { id: user.id, email },
    });
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
      'admin',
      'token',
      'create',
      '--team',
      team.id,
      '--user',
      user.id,
      '--name',
      'narrow',
      '--abilities',
      'forms:read,tokens:read',
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
    const created = await intakeJson<{ token: string }>([
      'admin',
      'token',
      'create',
      '--team',
      team.id,
      '--user',
      user.id,
      '--name',
      'viewer',
    ]);
    const me = await t.http.get('/v1/me').set(bearer(created.token));
    expect(me.body.data.role).toBe('viewer');
    expect([...me.body.data.token.abilities].sort()).toEqual([...ROLE_CEILINGS.viewer].sort());

    const res = await intake([
      'admin',
      'token',
      'create',
      '--team',
      team.id,
      '--user',
      user.id,
      '--name',
      'x',
      '--abilities',
      'forms:write',
    ]);
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

/** A member's e-mail and name, and a team's name, as the database holds them. */
async function userOf(id: string) {
  const { rows } = await t.ctx.db.query<{ email: string; name: string }>(
    'select email, name from users where id = $1',
    [id],
  );
  return rows[0]!;
}
async function teamName(id: string) {
  const { rows } = await t.ctx.db.query<{ name: string }>('select name from teams where id = $1', [id]);
  return rows[0]!.name;
}
async function revokedAt(tokenId: string) {
  const { rows } = await t.ctx.db.query<{ revoked_at: string | null }>(
    'select revoked_at::text from api_tokens where id = $1',
    [tokenId],
  );
  return rows[0]!.revoked_at;
}
const status = async (token: string) => (await t.http.get('/v1/me').set(bearer(token))).status;
const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

type MemberJson = { id: string; email: string; name: string; role: string; joined_at: string; token_count: number };
type TokenJson = {
  id: string;
  user_id: string;
  name: string;
  abilities: string[];
  created_at: string;
  last4: string;
  last_used_at: string | null;
  expires_at: string | null;
};

describe.concurrent('intake admin: teams, members and tokens', SLOW, () => {
  it('team list and team show: plan, members with roles, usable token counts (not revoked, not expired)', async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const editor = await makeMember(t, owner.teamId, 'editor');
    await makeToken(t, editor, ['forms:read']);
    const revoked = await makeToken(t, owner, ['forms:read']);
    await t.ctx.db.query('update api_tokens set revoked_at = now() where id = $1', [revoked.tokenId]);
    const expired = await makeToken(t, owner, ['forms:read']);
    await t.ctx.db.query("update api_tokens set expires_at = now() - interval '1 minute' where id = $1", [
      expired.tokenId,
    ]);
    const [name, ownerUser, editorUser] = [
      await teamName(owner.teamId),
      await userOf(owner.userId),
      await userOf(editor.userId),
    ];

    const teams = await intakeJson<Array<Record<string, unknown>>>(['admin', 'team', 'list']);
    expect(teams.find((x) => x.id === owner.teamId)).toEqual({
      id: owner.teamId,
      name,
      plan: 'scale',
      created_at: ISO,
      member_count: 2,
      token_count: 3,
    });

    const shown = await intakeJson(['admin', 'team', 'show', owner.teamId]);
    expect(shown).toEqual({
      id: owner.teamId,
      name,
      plan: 'scale',
      created_at: ISO,
      token_count: 3,
      members: [
        {
          id: owner.userId,
          email: ownerUser.email,
          name: ownerUser.name,
          role: 'owner',
          joined_at: ISO,
          token_count: 1,
        },
        {
          id: editor.userId,
          email: editorUser.email,
          name: editorUser.name,
          role: 'editor',
          joined_at: ISO,
          token_count: 2,
        },
      ],
    });

    const plainShow = await intake(['admin', 'team', 'show', owner.teamId]);
    expect(plainShow.code, plainShow.stderr).toBe(0);
    expect(plainShow.stdout).toBe(
      [
        `${owner.teamId}\t${name}\tscale\t3 tokens`,
        `${owner.userId}\t${ownerUser.email}\towner\t1 token`,
        `${editor.userId}\t${editorUser.email}\teditor\t2 tokens`,
        '',
      ].join('\n'),
    );
    const plainList = await intake(['admin', 'team', 'list']);
    expect(plainList.code, plainList.stderr).toBe(0);
    expect(plainList.stdout).toContain(`${owner.teamId}\t${name}\tscale\t2 members\t3 tokens\n`);

    expectCleanFailure(await intake(['admin', 'team', 'show', 'team_nope']), /Team "team_nope" not found/);
  });

  it('user list --team: the members with their roles and token counts', async () => {
    const owner = await makeTeam(t);
    const viewer = await makeMember(t, owner.teamId, 'viewer');
    const [ownerUser, viewerUser] = [await userOf(owner.userId), await userOf(viewer.userId)];
    const members = await intakeJson<MemberJson[]>(['admin', 'user', 'list', '--team', owner.teamId]);
    expect(members).toEqual([
      { id: owner.userId, email: ownerUser.email, name: ownerUser.name, role: 'owner', joined_at: ISO, token_count: 1 },
      {
        id: viewer.userId,
        email: viewerUser.email,
        name: viewerUser.name,
        role: 'viewer',
        joined_at: ISO,
        token_count: 1,
      },
    ]);
    const plain = await intake(['admin', 'user', 'list', '--team', owner.teamId]);
    expect(plain.stdout).toBe(
      `${owner.userId}\t${ownerUser.email}\towner\t1 token\n${viewer.userId}\t${viewerUser.email}\tviewer\t1 token\n`,
    );
    expectCleanFailure(await intake(['admin', 'user', 'list', '--team', 'team_nope']), /Team "team_nope" not found/);
  });

  it("user remove: the membership goes and the member's tokens of that team fail with 401 at once, for good", async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const admin = await makeMember(t, owner.teamId, 'admin');
    const second = await makeToken(t, admin, ['forms:read']);
    const { email, name } = await userOf(admin.userId);
    // The same person in another team keeps that membership and its tokens.
    const otherTeam = await makeTeam(t, { plan: 'pro' });
    await addMember(t.ctx, { email, name, teamId: otherTeam.teamId, role: 'editor' });
    const elsewhere = await makeToken(t, { ...admin, teamId: otherTeam.teamId, role: 'editor' }, ['forms:read']);
    expect(await status(admin.token)).toBe(200);
    expect(await status(second.token)).toBe(200);

    const removed = await intakeJson(['admin', 'user', 'remove', '--team', owner.teamId, '--user', admin.userId]);
    expect(removed).toEqual({ team: owner.teamId, user: admin.userId, role: 'admin', revoked_tokens: 2 });
    expect(await status(admin.token)).toBe(401);
    expect(await status(second.token)).toBe(401);
    expect(await revokedAt(admin.tokenId)).not.toBeNull();
    expect(await revokedAt(second.tokenId)).not.toBeNull();
    expect(await status(elsewhere.token)).toBe(200);
    expect(await status(owner.token)).toBe(200);
    const members = await intakeJson<MemberJson[]>(['admin', 'user', 'list', '--team', owner.teamId]);
    expect(members.map((m) => m.id)).toEqual([owner.userId]);

    // Added back, the user does not get the old tokens back.
    await addMember(t.ctx, { email, name, teamId: owner.teamId, role: 'admin' });
    expect(await status(admin.token)).toBe(401);

    const plain = await intake(['admin', 'user', 'remove', '--team', owner.teamId, '--user', admin.userId]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toBe(`${admin.userId}\t${owner.teamId}\tremoved\t0 tokens revoked\n`);
    expectCleanFailure(
      await intake(['admin', 'user', 'remove', '--team', owner.teamId, '--user', admin.userId]),
      new RegExp(`User "${admin.userId}" is not a member of team "${owner.teamId}"`),
    );
    expectCleanFailure(
      await intake(['admin', 'user', 'remove', '--team', 'team_nope', '--user', admin.userId]),
      /Team "team_nope" not found/,
    );
  });

  it("user remove refuses to remove a team's last owner, and changes nothing", async () => {
    const owner = await makeTeam(t);
    expectCleanFailure(
      await intake(['admin', 'user', 'remove', '--team', owner.teamId, '--user', owner.userId]),
      /is the last owner of team/,
    );
    expect(await status(owner.token)).toBe(200);
    expect(await revokedAt(owner.tokenId)).toBeNull();

    const second = await makeMember(t, owner.teamId, 'owner');
    const removed = await intakeJson(['admin', 'user', 'remove', '--team', owner.teamId, '--user', owner.userId]);
    expect(removed).toMatchObject({ role: 'owner', revoked_tokens: 1 });
    expect(await status(owner.token)).toBe(401);
    expect(await status(second.token)).toBe(200);
  });

  it("token list --team [--user]: metadata of the team's tokens not revoked, never the plaintext or its hash", async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const viewer = await makeMember(t, owner.teamId, 'viewer');
    const extra = await makeToken(t, owner, ['forms:read']);
    const gone = await makeToken(t, owner, ['forms:read']);
    await t.ctx.db.query('update api_tokens set revoked_at = now() where id = $1', [gone.tokenId]);
    // A name chosen through the API may hold a tab or a terminal escape.
    const odd = await issueToken(t.ctx, {
      teamId: owner.teamId,
      userId: owner.userId,
      name: 'odd\tname\u001b[2J',
      abilities: ['forms:read'],
    });
    await makeTeam(t); // another team's tokens never show

    const res = await intake(['admin', 'token', 'list', '--team', owner.teamId, '--json']);
    expect(res.code, res.stderr).toBe(0);
    const tokens = JSON.parse(res.stdout) as TokenJson[];
    expect(tokens.map((x) => x.id).sort()).toEqual([owner.tokenId, viewer.tokenId, extra.tokenId, odd.data.id].sort());
    for (const entry of tokens) {
      expect(Object.keys(entry).sort()).toEqual([
        'abilities',
        'created_at',
        'expires_at',
        'id',
        'last4',
        'last_used_at',
        'name',
        'user_id',
      ]);
    }
    expect(tokens.find((x) => x.id === extra.tokenId)).toEqual({
      id: extra.tokenId,
      user_id: owner.userId,
      name: 'extra',
      abilities: ['forms:read'],
      created_at: ISO,
      last4: extra.token.slice(-4),
      last_used_at: null,
      expires_at: null,
    });
    const { rows } = await t.ctx.db.query<{ token_hash: string }>(
      'select token_hash from api_tokens where team_id = $1',
      [owner.teamId],
    );
    for (const secret of [
      owner.token,
      viewer.token,
      extra.token,
      gone.token,
      odd.token,
      ...rows.map((r) => r.token_hash),
    ]) {
      expect(res.stdout).not.toContain(secret);
    }

    const viewers = await intakeJson<TokenJson[]>([
      'admin',
      'token',
      'list',
      '--team',
      owner.teamId,
      '--user',
      viewer.userId,
    ]);
    expect(viewers.map((x) => x.id)).toEqual([viewer.tokenId]);
    expect(viewers[0]!.user_id).toBe(viewer.userId);

    const plain = await intake(['admin', 'token', 'list', '--team', owner.teamId]);
    expect(plain.stdout).toContain(
      `${extra.tokenId}\t${owner.userId}\textra\t…${extra.token.slice(-4)}\tno expiry\tforms:read\n`,
    );
    expect(plain.stdout).toContain(`${odd.data.id}\t${owner.userId}\todd\\x09name\\x1b[2J\t`);
    expect(plain.stdout).not.toContain('\u001b');

    expectCleanFailure(await intake(['admin', 'token', 'list', '--team', 'team_nope']), /Team "team_nope" not found/);
    expectCleanFailure(
      await intake(['admin', 'token', 'list', '--team', owner.teamId, '--user', 'usr_nope']),
      /User "usr_nope" is not a member of team/,
    );
  });

  it("token revoke <token-id>: any member's token fails with 401 from the next request", async () => {
    const owner = await makeTeam(t);
    const colleague = await makeMember(t, owner.teamId, 'editor');
    expect(await status(colleague.token)).toBe(200);

    const revoked = await intakeJson(['admin', 'token', 'revoke', colleague.tokenId]);
    expect(revoked).toMatchObject({
      id: colleague.tokenId,
      team_id: owner.teamId,
      user_id: colleague.userId,
      revoked_at: ISO,
    });
    expect(revoked).not.toHaveProperty('token');
    expect(await status(colleague.token)).toBe(401);
    expect(await status(owner.token)).toBe(200);
    const left = await intakeJson<TokenJson[]>(['admin', 'token', 'list', '--team', owner.teamId]);
    expect(left.map((x) => x.id)).toEqual([owner.tokenId]);

    expectCleanFailure(
      await intake(['admin', 'token', 'revoke', colleague.tokenId]),
      new RegExp(`Token "${colleague.tokenId}" not found`),
    );
    const plain = await intake(['admin', 'token', 'revoke', owner.tokenId]);
    expect(plain.stdout).toBe(`${owner.tokenId}\trevoked\n`);
    expect(await status(owner.token)).toBe(401);
  });

  it('token create --expires-at: returned, listed, enforced; a past or malformed one is refused', async () => {
    const owner = await makeTeam(t);
    const at = new Date(Date.now() + 3_600_000);
    const created = await intakeJson<TokenJson & { token: string }>([
      'admin',
      'token',
      'create',
      '--team',
      owner.teamId,
      '--user',
      owner.userId,
      '--name',
      'temp',
      '--expires-at',
      at.toISOString(),
    ]);
    expect(created.expires_at).toBe(at.toISOString());
    expect(created.token).toMatch(/^intk_[0-9A-Za-z]{40}$/);
    expect(await status(created.token)).toBe(200);
    const listed = await intakeJson<TokenJson[]>(['admin', 'token', 'list', '--team', owner.teamId]);
    expect(listed.find((x) => x.id === created.id)?.expires_at).toBe(at.toISOString());
    expect((await intake(['admin', 'token', 'list', '--team', owner.teamId])).stdout).toContain(
      `\texpires ${at.toISOString()}\t`,
    );

    await t.ctx.db.query("update api_tokens set expires_at = now() - interval '1 second' where id = $1", [created.id]);
    expect(await status(created.token)).toBe(401);
    expect((await intake(['admin', 'token', 'list', '--team', owner.teamId])).stdout).toMatch(/\texpired \d{4}-/);

    const before = (await intakeJson<TokenJson[]>(['admin', 'token', 'list', '--team', owner.teamId])).length;
    const base = [
      'admin',
      'token',
      'create',
      '--team',
      owner.teamId,
      '--user',
      owner.userId,
      '--name',
      'x',
      '--expires-at',
    ];
    expectCleanFailure(await intake([...base, '2020-01-01']), /must be in the future/);
    expectCleanFailure(await intake([...base, 'soon']), /"soon" is not a real ISO 8601 date or date-time/);
    expectCleanFailure(await intake([...base, '2999-01-01T00:00:00Z']), /at most 10 years ahead/);
    expect((await intakeJson<TokenJson[]>(['admin', 'token', 'list', '--team', owner.teamId])).length).toBe(before);
  });
});

describe('intake admin: bad input', SLOW, () => {
  it('unknown team', async () => {
    expectCleanFailure(
      await intake([
        'admin',
        'user',
        'create',
        '--email',
        'a@example.test',
        '--name',
        'A',
        '--team',
        'team_nope',
        '--role',
        'owner',
      ]),
      /Team "team_nope" not found/,
    );
    expectCleanFailure(
      await intake(['admin', 'plan', 'set', '--team', 'team_nope', '--plan', 'pro']),
      /Team "team_nope" not found/,
    );
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
      await intake([
        'admin',
        'user',
        'create',
        '--email',
        'b@example.test',
        '--name',
        'B',
        '--team',
        team.id,
        '--role',
        'superuser',
      ]),
      /Unknown role "superuser": use one of owner, admin, editor, viewer/,
    );
  });

  it('bad ability', async () => {
    const owner = await makeTeam(t);
    const team = { id: owner.teamId };
    const user = { id: owner.userId };
    expectCleanFailure(
      await intake([
        'admin',
        'token',
        'create',
        '--team',
        team.id,
        '--user',
        user.id,
        '--name',
        'x',
        '--abilities',
        'forms:read,forms:destroy',
      ]),
      /Unknown abilities: forms:destroy/,
    );
  });

  it('unknown plan', async () => {
    expectCleanFailure(
      await intake(['admin', 'team', 'create', '--name', 'X', '--plan', 'enterprise']),
      /unknown plan "enterprise": use one of free, pro, team, scale/,
    );
    const team = { id: (await makeTeam(t)).teamId };
    expectCleanFailure(
      await intake(['admin', 'plan', 'set', '--team', team.id, '--plan', 'gold']),
      /unknown plan "gold"/,
    );
  });

  it('bad e-mail and missing options', async () => {
    const team = { id: (await makeTeam(t)).teamId };
    expectCleanFailure(
      await intake([
        'admin',
        'user',
        'create',
        '--email',
        'not-an-email',
        '--name',
        'C',
        '--team',
        team.id,
        '--role',
        'owner',
      ]),
      /"not-an-email" is not a valid e-mail address/,
    );
    const missing = await intake(['admin', 'team', 'create', '--plan', 'pro']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/required option '--name <name>' not specified/);
  });

  it('reports every missing required option at once, before touching the database', async () => {
    const cases: Array<[string[], RegExp]> = [
      [
        ['admin', 'token', 'create'],
        /required options '--team <team>', '--user <user>' and '--name <name>' not specified/,
      ],
      [
        ['admin', 'user', 'create', '--team', 'team_nope', '--name', 'X'],
        /required options '--email <email>' and '--role <role>' not specified/,
      ],
      [['admin', 'user', 'remove'], /required options '--team <team>' and '--user <user>' not specified/],
      [['admin', 'plan', 'set', '--json'], /required options '--team <team>' and '--plan <plan>' not specified/],
      [['admin', 'user', 'list'], /required option '--team <team>' not specified/],
    ];
    for (const [args, message] of cases) {
      const res = await intake(args);
      expect(res.code, args.join(' ')).not.toBe(0);
      expect(res.stdout).toBe('');
      expect(res.stderr).toMatch(message);
      expect(res.stderr).not.toMatch(/not found/); // refused before any lookup
    }
  });
});

describe('intake admin on a data dir without a database', SLOW, () => {
  // Its own data dir and no DATABASE_URL: the command creates an embedded cluster, as a first `make dev` would.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'intake-cli-empty-'));
  const cluster = clusterDir(dataDir);
  const env = shellEnv({ INTAKE_DATA_DIR: dataDir });

  afterAll(() => {
    // Each command stops the cluster it started; should one have failed to, stop it here.
    const pidFile = path.join(cluster, 'postmaster.pid');
    if (fs.existsSync(pidFile)) {
      try {
        process.kill(Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]), 'SIGQUIT');
      } catch {
        // already gone
      }
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
    for (const leftover of [cluster, `${cluster}.leases`, `${cluster}.lock`])
      fs.rmSync(leftover, { recursive: true, force: true });
  });

  it('says so on stderr before creating one, and not once it exists', async () => {
    expect(fs.existsSync(path.join(cluster, 'PG_VERSION'))).toBe(false);
    const first = await runCli(['admin', 'team', 'create', '--name', 'First', '--plan', 'free', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe(`intake: no database in ${dataDir} yet: creating one\n`);
    const team = JSON.parse(first.stdout) as { id: string };
    expect(team).toMatchObject({ name: 'First', plan: 'free' });
    expect(fs.existsSync(path.join(cluster, 'PG_VERSION'))).toBe(true);

    const second = await runCli(['admin', 'team', 'list', '--json'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toBe('');
    expect((JSON.parse(second.stdout) as { id: string }[]).map((x) => x.id)).toEqual([team.id]);
  });
});

describe('README', SLOW, () => {
  const readme = fs.existsSync(new URL('../../README.md', import.meta.url))
    ? fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
    : '';

  it('documents every environment variable server/config.ts reads', () => {
    const config = fs.readFileSync(new URL('../../server/config.ts', import.meta.url), 'utf8');
    const schema = config.slice(
      config.indexOf('const Env = z.object({'),
      config.indexOf('});', config.indexOf('const Env = z.object({')),
    );
    const vars = [...schema.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);
    expect(vars.length).toBeGreaterThan(5);
    const table = new Set([...readme.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]!));
    expect(
      vars.filter((v) => !table.has(v)),
      'variables missing from the README configuration table',
    ).toEqual([]);
  });

  it('documents every CLI command', async () => {
    const res = await intake(['--help']);
    const commands = [...res.stdout.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
    expect(commands.length).toBeGreaterThanOrEqual(5);
    for (const command of commands) expect(readme).toContain(`cli/intake ${command}`);
  });
});
