import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, userEnv } from '../support/cli.ts';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'intake-cli-profiles-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** `intake logout` (it writes the config file, and needs no server) from a working directory of its own. */
async function logout(name: string, xdgConfigHome: string | undefined) {
  const home = path.join(scratch, name, 'home');
  const cwd = path.join(scratch, name, 'cwd');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(cwd, { recursive: true });
  const res = await runCli(
    ['logout'],
    userEnv(home, undefined, xdgConfigHome === undefined ? {} : { XDG_CONFIG_HOME: xdgConfigHome }),
    cwd,
  );
  expect(res.code, res.stderr).toBe(0);
  return { home, cwd };
}

describe('intake config file location', () => {
  it('ignores an empty or relative XDG_CONFIG_HOME, as the XDG Base Directory spec says, and writes under ~/.config', async () => {
    for (const [name, xdg] of [
      ['unset', undefined],
      ['empty', ''],
      ['relative', 'conf'],
      ['dot', '.'],
    ] as const) {
      const { home, cwd } = await logout(name, xdg);
      expect(fs.statSync(path.join(home, '.config', 'intake', 'config.json')).mode & 0o777).toBe(0o600);
      expect(fs.readdirSync(cwd), `XDG_CONFIG_HOME=${JSON.stringify(xdg)}`).toEqual([]);
    }
  });

  it('uses an absolute XDG_CONFIG_HOME', async () => {
    const xdg = path.join(scratch, 'absolute', 'xdg');
    const { home } = await logout('absolute', xdg);
    expect(fs.existsSync(path.join(xdg, 'intake', 'config.json'))).toBe(true);
    expect(fs.existsSync(path.join(home, '.config'))).toBe(false);
  });
});
