import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { createClient } from '../sdk/index.ts';
import { fail, UsageError } from './exit-status.ts';

/** Saved logins (`intake login`): a profile per server and token, in the user's config dir, mode 0600. */

/** The XDG Base Directory spec has an empty or relative XDG_CONFIG_HOME ignored, so a token never lands under the cwd. */
export function configPath(): string {
  const xdg = process.env.XDG_CONFIG_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.config'), 'intake', 'config.json');
}

type Profiles = { profiles: Record<string, { url: string; token: string }>; current?: string };

function readProfiles(): Profiles {
  try {
    return JSON.parse(fs.readFileSync(configPath(), 'utf8')) as Profiles;
  } catch {
    return { profiles: {} };
  }
}

function writeProfiles(p: Profiles): void {
  fs.mkdirSync(path.dirname(configPath()), { recursive: true, mode: 0o700 });
  fs.writeFileSync(configPath(), `${JSON.stringify(p, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(configPath(), 0o600);
}

/** INTAKE_URL + INTAKE_TOKEN win; otherwise the profile (`--profile`, else the one last logged in). */
export function connection(profile: string | undefined): { url: string; token: string } {
  if (process.env.INTAKE_TOKEN && !profile)
    return { url: process.env.INTAKE_URL ?? 'http://localhost:3000', token: process.env.INTAKE_TOKEN };
  const saved = readProfiles();
  const name = profile ?? saved.current ?? 'default';
  const found = saved.profiles[name];
  if (!found)
    throw new UsageError(
      profile
        ? `no profile "${profile}" in ${configPath()}`
        : 'not logged in: set INTAKE_URL and INTAKE_TOKEN, or run `intake login --url … --token …`',
    );
  return found;
}

/** `--profile`: which saved login (`intake login`) a command uses; INTAKE_URL + INTAKE_TOKEN otherwise. */
export function withConnectionOptions(cmd: Command): Command {
  return cmd.option(
    '--profile <name>',
    'use this saved login instead of INTAKE_URL/INTAKE_TOKEN (default: the last one logged in)',
  );
}

/** `intake login` and `intake logout`. */
export function registerLogin(program: Command): void {
  withConnectionOptions(program.command('login'))
    .description('Save the URL and token the API commands use (~/.config/intake/config.json, mode 0600)')
    .requiredOption('--url <url>', 'the Intake server, e.g. https://forms.example.com')
    .requiredOption('--token <token>', 'an API token (intk_…)')
    .action(async (o: { url: string; token: string; profile?: string }) => {
      const profile = o.profile ?? 'default';
      try {
        const me = await createClient({ baseUrl: o.url, token: o.token }).ok.getMe();
        const saved = readProfiles();
        writeProfiles({
          ...saved,
          profiles: { ...saved.profiles, [profile]: { url: o.url, token: o.token } },
          current: profile,
        });
        process.stdout.write(
          `logged in to ${o.url} as ${me.data.user.email} (team ${me.data.team.name}); profile "${profile}"\n`,
        );
      } catch (err) {
        fail(err);
      }
    });
  withConnectionOptions(program.command('logout'))
    .description('Forget a saved login (the current profile, or --profile)')
    .action((o: { profile?: string }) => {
      const saved = readProfiles();
      const name = o.profile ?? saved.current ?? 'default';
      const { [name]: _gone, ...rest } = saved.profiles;
      writeProfiles({ profiles: rest, ...(saved.current && saved.current !== name ? { current: saved.current } : {}) });
      process.stdout.write(`logged out of profile "${name}"\n`);
    });
}
