import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { openAdminRuntime } from '../../server/admin-runtime.ts';
import { CLI_MAIN, packageRecorder, shellEnv } from '../support/cli.ts';
import { runProcess } from '../support/processes.ts';
import { bearer, makeTeam, startTestApp, testEnv } from '../support/harness.ts';

/**
 * An admin command opens the database, does one thing and exits: it must not pay for a server's start.
 * A resolve hook preloaded into the command's process (record-packages.ts) records every package it loads;
 * what only a server, a worker or an API command uses must not be among them. (How fast it is: bench/admin-commands.ts.)
 */
const SERVER_ONLY = ['express', 'pg-boss', '@modelcontextprotocol/sdk', 's3rver', 'minio', 'openai', 'nodemailer'];

const recordDir = fs.mkdtempSync(path.join(os.tmpdir(), 'intake-admin-packages-'));
afterAll(() => fs.rmSync(recordDir, { recursive: true, force: true }));

/** Runs `intake <args>` as its own process with the recorder; returns its result and the packages it loaded. */
async function admin(args: string[]) {
  const recorder = packageRecorder(recordDir);
  const res = await runProcess(
    process.execPath,
    [...recorder.node, CLI_MAIN, ...args],
    shellEnv({ ...testEnv(), ...recorder.env }),
  );
  return { ...res, packages: recorder.packages() };
}

const t = await startTestApp();

describe.concurrent('admin commands load only what they use', { timeout: 120_000 }, () => {
  it('team list: prints the teams, exits 0, and loads the database driver but nothing a server needs', async () => {
    const owner = await makeTeam(t, { plan: 'pro' });
    const res = await admin(['admin', 'team', 'list', '--json']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toBe('');
    expect(
      (JSON.parse(res.stdout) as Array<{ id: string; plan: string }>).find((x) => x.id === owner.teamId),
    ).toMatchObject({ plan: 'pro' });
    // The recorder works: the command's own packages are there.
    expect(res.packages).toEqual(expect.arrayContaining(['commander', 'pg', '@mikro-orm/core']));
    expect(res.packages.filter((p) => SERVER_ONLY.includes(p))).toEqual([]);
  });

  it('token create: the token works against the API, and the command loaded nothing a server needs', async () => {
    const owner = await makeTeam(t);
    const res = await admin([
      'admin',
      'token',
      'create',
      '--team',
      owner.teamId,
      '--user',
      owner.userId,
      '--name',
      'lean',
      '--abilities',
      'forms:read',
      '--json',
    ]);
    expect(res.code, res.stderr).toBe(0);
    const created = JSON.parse(res.stdout) as { token: string; abilities: string[] };
    expect(created.abilities).toEqual(['forms:read']);
    expect((await t.http.get('/v1/me').set(bearer(created.token))).status).toBe(200);
    expect(res.packages.filter((p) => SERVER_ONLY.includes(p))).toEqual([]);
  });

  it('a failing admin command exits 1 with one line, still without loading a server', async () => {
    const res = await admin(['admin', 'team', 'show', 'team_nope']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/^intake: Team "team_nope" not found\.?\n$/);
    expect(res.packages.filter((p) => SERVER_ONLY.includes(p))).toEqual([]);
  });
});

describe('an admin runtime, closed', () => {
  // Not concurrent with anything else in this file: it counts the process's timers.
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

  it('leaves no timer behind: nothing holds the process once its work is done', async () => {
    const before = timers();
    const rt = await openAdminRuntime({ ...loadConfig(testEnv()), logLevel: 'silent' });
    expect((await rt.ctx.db.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
    await rt.close();
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it('has the database and nothing a server starts: touching storage or the queue names the part', async () => {
    const rt = await openAdminRuntime({ ...loadConfig(testEnv()), logLevel: 'silent' });
    try {
      expect(() => rt.ctx.storage).toThrow('ctx.storage is not started in an admin command');
      expect(() => rt.ctx.queue).toThrow('ctx.queue is not started in an admin command');
    } finally {
      await rt.close();
    }
  });
});
