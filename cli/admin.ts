import type { Command } from 'commander';
import { ABILITIES, ROLES } from '../contract/abilities.ts';
import type { AppContext } from '../server/context.ts';
import type { MemberSummary } from '../server/domain/accounts/teams.ts';
import type { TeamTokenEntry } from '../server/domain/accounts/tokens.ts';

const PLANS = ['free', 'pro', 'team', 'scale'];

// What a command needs is imported when it runs: `--help` and usage errors load none of it, and a command
// loads the database and its own domain module, never the HTTP app, the job queue or storage.
const teams = () => import('../server/domain/accounts/teams.ts');
const tokens = () => import('../server/domain/accounts/tokens.ts');
const users = () => import('../server/domain/accounts/users.ts');
const timestamps = () => import('../server/domain/shared/timestamps.ts');

/**
 * Admin commands open the database only (attaching to a running `make dev` cluster), do one thing, close.
 * An operator who points one at an empty data dir by mistake should see that a new database is being made.
 */
async function withRuntime<T>(fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  const [{ loadConfig }, { adminDatabaseMissing, openAdminRuntime }] = await Promise.all([
    import('../server/config.ts'),
    import('../server/admin-runtime.ts'),
  ]);
  const config = loadConfig();
  if (adminDatabaseMissing(config)) console.error(`intake: no database in ${config.dataDir} yet: creating one`);
  const rt = await openAdminRuntime({ ...config, logLevel: 'warn' });
  try {
    return await fn(rt.ctx);
  } finally {
    await rt.close();
  }
}

/** `--json`: exactly the data, one JSON document; otherwise tab-separated lines (an empty list: a note on stderr). */
function print(json: boolean, value: unknown, human: string, empty = 'nothing to list') {
  if (json) console.log(JSON.stringify(value, null, 2));
  else if (human) console.log(human);
  else console.error(empty);
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/**
 * One tab-separated line. Names come from API users: a control character (a tab, a newline, a terminal
 * escape) is shown as `\xNN`, so it can neither break the columns nor drive the operator's terminal.
 */
const row = (...cells: string[]) =>
  cells.map((c) => c.replace(/\p{Cc}/gu, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`)).join('\t');

const memberLine = (m: MemberSummary) => row(m.id, m.email, m.role, count(m.token_count, 'token'));

function expiry(expiresAt: string | null): string {
  if (expiresAt === null) return 'no expiry';
  return `${Date.parse(expiresAt) <= Date.now() ? 'expired' : 'expires'} ${expiresAt}`;
}

const tokenLine = (t: TeamTokenEntry) =>
  row(t.id, t.user_id, t.name, `…${t.last4}`, expiry(t.expires_at), t.abilities.join(','));

/** One line on stderr and exit 1: an AppError's message is already written for the operator. */
function fail(err: unknown): never {
  console.error(`intake: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}

function action<A extends unknown[]>(fn: (...args: A) => Promise<void>) {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      fail(err);
    }
  };
}

function checkPlan(plan: string) {
  if (!PLANS.includes(plan)) fail(`unknown plan "${plan}": use one of ${PLANS.join(', ')}`);
}

function registerTeamCommands(admin: Command) {
  const team = admin
    .command('team')
    .description('Teams: create one, list them all, show one with its members and tokens');
  team
    .command('create')
    .description('Create a team (with its subscription)')
    .requiredOption('--name <name>', 'team name')
    .requiredOption('--plan <plan>', `plan: ${PLANS.join('|')}`)
    .option('--json', 'print JSON')
    .action(
      action(async (opts: { name: string; plan: string; json?: boolean }) => {
        checkPlan(opts.plan);
        const [{ createTeam }, { iso }] = await Promise.all([teams(), timestamps()]);
        const t = await withRuntime((ctx) => createTeam(ctx, { name: opts.name, plan: opts.plan }));
        print(
          !!opts.json,
          { id: t.id, name: t.name, plan: t.planId, created_at: iso(t.createdAt) },
          `${t.id}\t${t.name}\t${t.planId}`,
        );
      }),
    );
  team
    .command('list')
    .description('List every team with its plan and how many members and usable tokens it has')
    .option('--json', 'print JSON')
    .action(
      action(async (opts: { json?: boolean }) => {
        const { listTeams } = await teams();
        const all = await withRuntime((ctx) => listTeams(ctx));
        const lines = all.map((t) =>
          row(t.id, t.name, t.plan, count(t.member_count, 'member'), count(t.token_count, 'token')),
        );
        print(!!opts.json, all, lines.join('\n'), 'no teams yet');
      }),
    );
  team
    .command('show')
    .description('Show a team: its plan, its members with their roles, and its usable tokens')
    .argument('<id>', 'team id')
    .option('--json', 'print JSON')
    .action(
      action(async (id: string, opts: { json?: boolean }) => {
        const { showTeam } = await teams();
        const t = await withRuntime((ctx) => showTeam(ctx, id));
        const human = [row(t.id, t.name, t.plan, count(t.token_count, 'token')), ...t.members.map(memberLine)].join(
          '\n',
        );
        print(!!opts.json, t, human);
      }),
    );
}

function registerUserCommands(admin: Command) {
  const user = admin
    .command('user')
    .description("Users: add one to a team with a role, list a team's members, remove one");
  user
    .command('create')
    .description('Create a user (or reuse one with that e-mail) and add them to a team with a role')
    .requiredOption('--email <email>', 'e-mail address')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--team <team>', 'team id')
    .requiredOption('--role <role>', `role: ${ROLES.join('|')}`)
    .option('--json', 'print JSON')
    .action(
      action(async (opts: { email: string; name: string; team: string; role: string; json?: boolean }) => {
        const { addMember } = await users();
        const { user: u, role } = await withRuntime((ctx) =>
          addMember(ctx, { email: opts.email, name: opts.name, teamId: opts.team, role: opts.role }),
        );
        print(
          !!opts.json,
          { id: u.id, email: u.email, name: u.name, team: opts.team, role },
          `${u.id}\t${u.email}\t${role}`,
        );
      }),
    );
  user
    .command('list')
    .description("List a team's members with their roles and usable token counts")
    .requiredOption('--team <team>', 'team id')
    .option('--json', 'print JSON')
    .action(
      action(async (opts: { team: string; json?: boolean }) => {
        const { listTeamMembers } = await users();
        const members = await withRuntime((ctx) => listTeamMembers(ctx, opts.team));
        print(!!opts.json, members, members.map(memberLine).join('\n'), 'no members');
      }),
    );
  user
    .command('remove')
    .description(
      "Remove a member from a team; their tokens of that team are revoked at once (the user's other teams are untouched)",
    )
    .requiredOption('--team <team>', 'team id')
    .requiredOption('--user <user>', 'user id')
    .option('--json', 'print JSON')
    .action(
      action(async (opts: { team: string; user: string; json?: boolean }) => {
        const { removeMember } = await users();
        const removed = await withRuntime((ctx) => removeMember(ctx, { teamId: opts.team, userId: opts.user }));
        print(
          !!opts.json,
          removed,
          `${removed.user}\t${removed.team}\tremoved\t${count(removed.revoked_tokens, 'token')} revoked`,
        );
      }),
    );
}

function registerTokenCommands(admin: Command) {
  const token = admin.command('token').description("API tokens of any member: mint, list a team's, revoke");
  token
    .command('create')
    .description("Mint a token for a member; without --abilities it gets everything the member's role allows")
    .requiredOption('--team <team>', 'team id')
    .requiredOption('--user <user>', 'user id')
    .requiredOption('--name <name>', 'token label')
    .option('--abilities <list>', `comma-separated abilities (${ABILITIES.join(', ')})`)
    .option(
      '--expires-at <instant>',
      'ISO 8601 instant after which the token stops working (at most 10 years ahead; default: never)',
    )
    .option('--json', 'print JSON')
    .action(
      action(
        async (opts: {
          team: string;
          user: string;
          name: string;
          abilities?: string;
          expiresAt?: string;
          json?: boolean;
        }) => {
          const abilities = opts.abilities
            ?.split(',')
            .map((a) => a.trim())
            .filter(Boolean);
          const { issueToken } = await tokens();
          const created = await withRuntime((ctx) =>
            issueToken(ctx, {
              teamId: opts.team,
              userId: opts.user,
              name: opts.name,
              abilities,
              expiresAt: opts.expiresAt,
            }),
          );
          print(!!opts.json, { ...created.data, token: created.token }, `${created.data.id}\t${created.token}`);
        },
      ),
    );
  token
    .command('list')
    .description("List a team's tokens that are not revoked (metadata only: never the plaintext or its hash)")
    .requiredOption('--team <team>', 'team id')
    .option('--user <user>', "only this member's tokens")
    .option('--json', 'print JSON')
    .action(
      action(async (opts: { team: string; user?: string; json?: boolean }) => {
        const { listTeamTokens } = await tokens();
        const listed = await withRuntime((ctx) => listTeamTokens(ctx, { teamId: opts.team, userId: opts.user }));
        print(!!opts.json, listed, listed.map(tokenLine).join('\n'), 'no tokens');
      }),
    );
  token
    .command('revoke')
    .description('Revoke a token of any member; it fails with 401 from the next request on')
    .argument('<token-id>', 'token id (tok_…), not its plaintext')
    .option('--json', 'print JSON')
    .action(
      action(async (tokenId: string, opts: { json?: boolean }) => {
        const { revokeTokenById } = await tokens();
        const revoked = await withRuntime((ctx) => revokeTokenById(ctx, tokenId));
        print(!!opts.json, revoked, `${revoked.id}\trevoked`);
      }),
    );
}

function registerPlanCommands(admin: Command) {
  const plan = admin.command('plan').description("A team's plan: change it");
  plan
    .command('set')
    .description("Change a team's plan")
    .requiredOption('--team <team>', 'team id')
    .requiredOption('--plan <plan>', `plan: ${PLANS.join('|')}`)
    .option('--json', 'print JSON')
    .action(
      action(async (opts: { team: string; plan: string; json?: boolean }) => {
        checkPlan(opts.plan);
        const { setTeamPlan } = await teams();
        const t = await withRuntime((ctx) => setTeamPlan(ctx, opts.team, opts.plan));
        print(!!opts.json, { id: t.id, plan: t.planId }, `${t.id}\t${t.planId}`);
      }),
    );
}

export function registerAdmin(program: Command) {
  const admin = program
    .command('admin')
    .description('Administer teams, users, tokens and plans directly in the database');
  registerTeamCommands(admin);
  registerUserCommands(admin);
  registerTokenCommands(admin);
  registerPlanCommands(admin);
}
