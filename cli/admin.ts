import type { Command } from 'commander';
import { ABILITIES, ROLES } from '../contract/abilities.ts';
import { AppError } from '../server/domain/errors.ts';
import { createTeam, setTeamPlan } from '../server/domain/teams.ts';
import { issueToken } from '../server/domain/tokens.ts';
import { addMember } from '../server/domain/users.ts';
import type { Runtime } from '../server/main.ts';
import { iso } from '../server/domain/timestamps.ts';

const PLANS = ['free', 'pro', 'team', 'scale'];

/** Admin commands open the database only (attaching to a running `make dev` cluster), do one thing, close. */
async function withRuntime<T>(fn: (rt: Runtime) => Promise<T>): Promise<T> {
  const { boot, loadConfig } = await import('../server/main.ts'); // not needed for --help
  const config = loadConfig();
  const rt = await boot({ ...config, logLevel: 'warn' }, { http: false, worker: false, services: false });
  try {
    return await fn(rt);
  } finally {
    await rt.close();
  }
}

function print(json: boolean, value: Record<string, unknown>, human: string) {
  console.log(json ? JSON.stringify(value, null, 2) : human);
}

function fail(err: unknown): never {
  const message = err instanceof AppError ? err.message : err instanceof Error ? err.message : String(err);
  console.error(`intake: ${message}`);
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

export function registerAdmin(program: Command) {
  const admin = program.command('admin').description('Administer teams, users, tokens and plans directly in the database');

  const team = admin.command('team').description('Teams');
  team
    .command('create')
    .description('Create a team (with its subscription)')
    .requiredOption('--name <name>', 'team name')
    .requiredOption('--plan <plan>', `plan: ${PLANS.join('|')}`)
    .option('--json', 'print JSON')
    .action(
      action(async (opts: { name: string; plan: string; json?: boolean }) => {
        if (!PLANS.includes(opts.plan)) fail(`unknown plan "${opts.plan}": use one of ${PLANS.join(', ')}`);
        const t = await withRuntime((rt) => createTeam(rt.ctx, { name: opts.name, plan: opts.plan }));
        print(!!opts.json, { id: t.id, name: t.name, plan: t.planId, created_at: iso(t.createdAt) }, `${t.id}\t${t.name}\t${t.planId}`);
      }),
    );

  const user = admin.command('user').description('Users');
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
        const { user: u, role } = await withRuntime((rt) =>
          addMember(rt.ctx, { email: opts.email, name: opts.name, teamId: opts.team, role: opts.role }),
        );
        print(!!opts.json, { id: u.id, email: u.email, name: u.name, team: opts.team, role }, `${u.id}\t${u.email}\t${role}`);
      }),
    );

  const token = admin.command('token').description('API tokens');
  token
    .command('create')
    .description("Mint a token for a member; without --abilities it gets everything the member's role allows")
    .requiredOption('--team <team>', 'team id')
    .requiredOption('--user <user>', 'user id')
    .requiredOption('--name <name>', 'token label')
    .option('--abilities <list>', `comma-separated abilities (${ABILITIES.join(', ')})`)
    .option('--json', 'print JSON')
    .action(
      action(async (opts: { team: string; user: string; name: string; abilities?: string; json?: boolean }) => {
        const abilities = opts.abilities?.split(',').map((a) => a.trim()).filter(Boolean);
        const created = await withRuntime((rt) =>
          issueToken(rt.ctx, { teamId: opts.team, userId: opts.user, name: opts.name, abilities }),
        );
        print(
          !!opts.json,
          { id: created.data.id, token: created.token, abilities: created.data.abilities },
          `${created.data.id}\t${created.token}`,
        );
      }),
    );

  const plan = admin.command('plan').description('Plans');
  plan
    .command('set')
    .description("Change a team's plan")
    .requiredOption('--team <team>', 'team id')
    .requiredOption('--plan <plan>', `plan: ${PLANS.join('|')}`)
    .option('--json', 'print JSON')
    .action(
      action(async (opts: { team: string; plan: string; json?: boolean }) => {
        if (!PLANS.includes(opts.plan)) fail(`unknown plan "${opts.plan}": use one of ${PLANS.join(', ')}`);
        const t = await withRuntime((rt) => setTeamPlan(rt.ctx, opts.team, opts.plan));
        print(!!opts.json, { id: t.id, plan: t.planId }, `${t.id}\t${t.planId}`);
      }),
    );
}
