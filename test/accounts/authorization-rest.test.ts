import { describe, expect, it } from 'vitest';
import { ABILITIES, ROLE_CEILINGS, ROLES } from '../../contract/index.ts';
import { runReplayJob } from '../../server/domain/delivery/replay.ts';
import { runErasure } from '../../server/domain/lifecycle/erasure.ts';
import { addMember } from '../../server/domain/accounts/users.ts';
import { makeTeam, makeToken } from '../support/harness.ts';
import {
  insertDelivery,
  insertForm,
  insertSubmission,
  insertWebhook,
  makeRecords,
  makeRoleMember,
  recordFactories,
} from '../support/team-records.ts';
import {
  acceptsOf,
  callTool,
  expect401,
  expectError,
  expectNotRefused,
  expectToolError,
  expectToolNotRefused,
  fillPath,
  listServer,
  makeRoleCallers,
  mcpClient,
  rest,
  roleMay,
  routes,
  sampleQueries,
  send,
  t,
  teamIds,
  toolArgs,
  unauthenticatedCases,
} from '../support/authorization.ts';

/** The authorization matrix over every contract route (see test/support/authorization.ts): expired tokens, each role's ceiling, another team's records, nested ids; tokens by role and member; jobs. */

// ---------------------------------------------------------------------------------------------------

const roleCallers = await makeRoleCallers();
const { toolOfRoute } = await listServer();

describe.each(routes.map((e) => [`${e.key} ${e.route.method} ${e.route.path}`, e] as const))('%s', (label, entry) => {
  const tool = toolOfRoute.get(entry.key);

  it('answers 401 to an expired token as to no token and a revoked one', async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const made = await makeRecords(t, owner, entry.params);
    for (const c of await unauthenticatedCases(owner)) {
      for (const accept of acceptsOf(entry)) {
        expect401(
          await send(entry, made, { authorization: c.authorization, accept }),
          `${label} ${c.name}${accept ? ` (Accept: ${accept})` : ''}`,
          c.invalidToken,
        );
      }
      // HEAD runs every GET route too (express): the same 401, headers only.
      if (entry.route.method === 'GET') {
        const head = await rest('HEAD', fillPath(entry.route, made), {
          authorization: c.authorization,
          query: sampleQueries[entry.key],
        });
        expect(head.status, `${label} HEAD ${c.name}`).toBe(401);
        expect(head.headers.get('www-authenticate'), `${label} HEAD ${c.name}`).toMatch(/^Bearer realm="intake"/);
      }
    }
    // A valid token anywhere but the Authorization header does not count.
    const elsewhere = await rest(entry.route.method, fillPath(entry.route, made), {
      query: { ...sampleQueries[entry.key], access_token: owner.token },
    });
    expect401(elsewhere, `${label} token in the query string`, false);
  });

  it.each(roleCallers.map((c) => [c.label, c] as const))(
    'as %s with its whole ceiling: 403 where the role may not, else an answer (REST and MCP)',
    async (who, caller) => {
      const may = roleMay(caller.role, entry);
      for (const accept of acceptsOf(entry)) {
        const as = `${label} as ${who}${accept ? ` (Accept: ${accept})` : ''}`;
        const res = await send(entry, await makeRecords(t, caller.member, entry.params), {
          token: caller.member.token,
          accept,
        });
        if (may.may) expectNotRefused(res, as);
        else {
          expectError(res, 403, 'forbidden', as);
          if (may.required) expect(res.body?.required, as).toBe(may.required);
        }
      }
      if (!tool) return;
      const answer = await callTool(
        caller.client,
        tool,
        toolArgs(entry.key, await makeRecords(t, caller.member, entry.params)),
      );
      if (may.may) expectToolNotRefused(answer, `${label} MCP as ${who}`);
      else
        expectToolError(answer, 'forbidden', `${label} MCP as ${who}`, may.required ? { required: may.required } : {});
    },
  );

  it("answers another team's token 404 for our records (even when its user is also one of our members), and never shows our ids in its own answers (REST and MCP)", async () => {
    const ours = await makeTeam(t, { plan: 'scale' });
    const theirs = await makeRoleMember(t, (await makeTeam(t, { plan: 'scale' })).teamId, 'owner');
    // Their user is a member of our team too: the token still acts only in the team it was minted in.
    await addMember(t.ctx, { email: theirs.email, name: 'Both teams', teamId: ours.teamId, role: 'viewer' });
    // Our team holds one of everything, so lists and counts have something to leak.
    await makeRecords(t, ours, Object.keys(recordFactories));
    const ourRecords = await makeRecords(t, ours, entry.params);
    const client = await mcpClient(theirs.token);
    try {
      if (entry.params.length > 0) {
        for (const accept of acceptsOf(entry)) {
          expectError(
            await send(entry, ourRecords, { token: theirs.token, accept }),
            404,
            'not_found',
            `${label} another team's token${accept ? ` (Accept: ${accept})` : ''}`,
          );
        }
        if (tool)
          expectToolError(
            await callTool(client, tool, toolArgs(entry.key, ourRecords)),
            'not_found',
            `${label} MCP another team's token`,
          );
      }
      const ourIds = await teamIds(ours.teamId);
      const own = await send(entry, await makeRecords(t, theirs, entry.params), { token: theirs.token });
      expectNotRefused(own, `${label} their own records`);
      for (const id of ourIds) expect(own.text, `${label}: their answer shows our ${id}`).not.toContain(id);
      if (tool) {
        const answer = await callTool(client, tool, toolArgs(entry.key, await makeRecords(t, theirs, entry.params)));
        expectToolNotRefused(answer, `${label} MCP their own records`);
        const text = answer.ok ? answer.text : JSON.stringify(answer.error);
        for (const id of ourIds) expect(text, `${label} MCP: their answer shows our ${id}`).not.toContain(id);
      }
    } finally {
      await client.close();
    }
  });

  // Every way to graft the tail of one chain of records onto the head of another in the same team: `split`
  // is the first parameter taken from the other chain, `shared` how many leading records both chains share.
  const grafts = entry.params
    .flatMap((_, split) => Array.from({ length: split }, (__, shared) => ({ split, shared })))
    .filter((g) => g.split > 0);

  if (grafts.length)
    it.each(grafts.map((g) => [entry.params.slice(g.split).join(', '), g.shared, g] as const))(
      'answers 404 to ids nested under the wrong parent in one team (%s of another chain sharing %i record(s))',
      async (_tail, _shared, { split, shared }) => {
        const owner = await makeTeam(t, { plan: 'scale' });
        const a = await makeRecords(t, owner, entry.params);
        const b = await makeRecords(
          t,
          owner,
          entry.params,
          Object.fromEntries(entry.params.slice(0, shared).map((p) => [p, a[p]!])),
        );
        const grafted = Object.fromEntries(entry.params.map((p, i) => [p, i < split ? a[p]! : b[p]!]));
        const what = entry.params.map((p) => `${p}=${grafted[p] === a[p] ? 'A' : 'B'}`).join(' ');
        for (const accept of acceptsOf(entry)) {
          expectError(
            await send(entry, grafted, { token: owner.token, accept }),
            404,
            'not_found',
            `${label} ${what}${accept ? ` (Accept: ${accept})` : ''}`,
          );
        }
        if (tool) {
          const client = await mcpClient(owner.token);
          try {
            expectToolError(
              await callTool(client, tool, toolArgs(entry.key, grafted)),
              'not_found',
              `${label} MCP ${what}`,
            );
          } finally {
            await client.close();
          }
        }
        // Control: B's records are real and intact, and its own path reaches them.
        expectNotRefused(await send(entry, b, { token: owner.token }), `${label} B's own path`);
      },
    );
});

// ---------------------------------------------------------------------------------------------------
// Tokens: a role mints within its ceiling, a member manages only its own family (spec, Authentication 4, 5, 8)

describe('tokens by role and member', () => {
  it.each(ROLES)('a %s mints its whole ceiling and nothing beyond it (REST and MCP)', async (role) => {
    const member = await makeRoleMember(t, (await makeTeam(t, { plan: 'scale' })).teamId, role);
    const client = await mcpClient(member.token);
    try {
      const ceiling = [...ROLE_CEILINGS[role]];
      const minted = await rest('POST', '/v1/tokens', {
        token: member.token,
        body: { name: 'ceiling', abilities: ceiling },
      });
      expect(minted.status, minted.text).toBe(201);
      expect([...(minted.body!.data as { abilities: string[] }).abilities].sort()).toEqual([...ceiling].sort());
      const viaTool = await callTool(client, 'create_token', { name: 'ceiling', abilities: ceiling });
      expect(viaTool.ok, JSON.stringify(viaTool)).toBe(true);

      for (const beyond of ABILITIES.filter((a) => !ROLE_CEILINGS[role].includes(a))) {
        const label = `${role} asking for ${beyond}`;
        const res = await rest('POST', '/v1/tokens', {
          token: member.token,
          body: { name: 'beyond', abilities: ['forms:read', beyond] },
        });
        expectError(res, 403, 'ability_exceeds_caller', label);
        expect(res.body!.exceeded, label).toEqual([beyond]);
        expectToolError(
          await callTool(client, 'create_token', { name: 'beyond', abilities: ['forms:read', beyond] }),
          'ability_exceeds_caller',
          `MCP ${label}`,
          { exceeded: [beyond] },
        );
      }
      const { rows } = await t.ctx.db.query<{ n: number }>(
        `select count(*)::int as n from api_tokens where user_id = $1 and name = 'beyond'`,
        [member.userId],
      );
      expect(rows[0]!.n, 'no token minted beyond the role').toBe(0);
    } finally {
      await client.close();
    }
  });

  it("a member neither lists nor revokes another member's tokens, nor the token it calls with (REST and MCP)", async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const colleague = await makeRoleMember(t, owner.teamId, 'admin');
    const theirs = await makeToken(t, colleague, ['forms:read']);
    const client = await mcpClient(owner.token);
    try {
      const listed = await rest('GET', '/v1/tokens', { token: owner.token });
      expect(listed.status, listed.text).toBe(200);
      expect(listed.text).not.toContain(colleague.tokenId);
      expect(listed.text).not.toContain(theirs.tokenId);
      const toolList = await callTool(client, 'list_tokens', {});
      expect(toolList.ok && !toolList.text.includes(theirs.tokenId), JSON.stringify(toolList)).toBe(true);

      expectError(
        await rest('DELETE', `/v1/tokens/${theirs.tokenId}`, { token: owner.token }),
        403,
        'forbidden',
        "another member's token",
      );
      expectToolError(
        await callTool(client, 'revoke_token', { token: theirs.tokenId }),
        'forbidden',
        "MCP another member's token",
      );
      expectError(
        await rest('DELETE', `/v1/tokens/${owner.tokenId}`, { token: owner.token }),
        403,
        'cannot_revoke_active_token',
        'the calling token',
      );
      expectToolError(
        await callTool(client, 'revoke_token', { token: owner.tokenId }),
        'cannot_revoke_active_token',
        'MCP the calling token',
      );
      // Both still work.
      expect((await rest('GET', '/v1/me', { token: theirs.token })).status).toBe(200);
      expect((await rest('GET', '/v1/me', { token: owner.token })).status).toBe(200);
    } finally {
      await client.close();
    }
  });

  it("a user's token in one team does not reach the same user's tokens in another team (404, REST and MCP)", async () => {
    const here = await makeRoleMember(t, (await makeTeam(t, { plan: 'scale' })).teamId, 'owner');
    const elsewhereTeam = (await makeTeam(t, { plan: 'scale' })).teamId;
    await addMember(t.ctx, { email: here.email, name: 'Both teams', teamId: elsewhereTeam, role: 'owner' });
    const elsewhere = await makeToken(t, { ...here, teamId: elsewhereTeam }, ['forms:read']);
    const client = await mcpClient(here.token);
    try {
      const listed = await rest('GET', '/v1/tokens', { token: here.token });
      expect(listed.status, listed.text).toBe(200);
      expect(listed.text, "the other team's token is not listed").not.toContain(elsewhere.tokenId);
      expectError(
        await rest('DELETE', `/v1/tokens/${elsewhere.tokenId}`, { token: here.token }),
        404,
        'not_found',
        "the same user's token in another team",
      );
      expectToolError(
        await callTool(client, 'revoke_token', { token: elsewhere.tokenId }),
        'not_found',
        "MCP the same user's token in another team",
      );
      const me = await rest('GET', '/v1/me', { token: elsewhere.token });
      expect(me.status, "the other team's token still works").toBe(200);
      expect((me.body!.data as { team: { id: string } }).team.id).toBe(elsewhereTeam);
    } finally {
      await client.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Jobs made through the API

describe('jobs', () => {
  it("a job of another team is not found, its own team's is found (REST and MCP)", async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const other = await makeTeam(t, { plan: 'scale' });
    const webhook = await insertWebhook(t, owner.teamId, await insertForm(t, owner.teamId));
    const replay = await rest('POST', `/v1/webhooks/${webhook}/replay`, {
      token: owner.token,
      body: { status: 'dead' },
    });
    expect(replay.status, replay.text).toBe(202);
    // A real run (a dry run answers at once and makes no job).
    const erasure = await rest('POST', '/v1/erasure', { token: owner.token, body: { email: 'nobody@example.test' } });
    expect(erasure.status, erasure.text).toBe(202);
    const client = await mcpClient(other.token);
    try {
      for (const job of [replay.body!.job_id as string, erasure.body!.job_id as string]) {
        expectError(
          await rest('GET', `/v1/jobs/${job}`, { token: other.token }),
          404,
          'not_found',
          `another team's job ${job}`,
        );
        expectToolError(
          await callTool(client, 'get_job', { job_id: job }),
          'not_found',
          `MCP another team's job ${job}`,
        );
        expect((await rest('GET', `/v1/jobs/${job}`, { token: owner.token })).status, 'its own team').toBe(200);
      }
      const receipt = erasure.body!.erasure_id as string;
      expectError(
        await rest('GET', `/v1/erasure/${receipt}`, { token: other.token }),
        404,
        'not_found',
        "another team's erasure receipt",
      );
      expectToolError(
        await callTool(client, 'get_erasure', { erasure: receipt }),
        'not_found',
        "MCP another team's erasure receipt",
      );
    } finally {
      await client.close();
    }
  });

  // The jobs are run here by the functions the worker calls (this app has no worker on the shared database).
  it("a webhook replay and an erasure started by one team touch nothing of another team's", async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const other = await makeTeam(t, { plan: 'scale' });
    const ourForm = await insertForm(t, owner.teamId);
    const theirForm = await insertForm(t, other.teamId);
    const ourHook = await insertWebhook(t, owner.teamId, ourForm);
    const theirHook = await insertWebhook(t, other.teamId, theirForm);
    // Dead deliveries on both sides; their submissions, like every one insertSubmission makes, are from a@example.test.
    const ourDead = await insertDelivery(t, owner.teamId, ourHook);
    await insertDelivery(t, other.teamId, theirHook);
    await insertSubmission(t, owner.teamId, ourForm);
    await insertSubmission(t, other.teamId, theirForm);

    const replay = await rest('POST', `/v1/webhooks/${ourHook}/replay`, {
      token: owner.token,
      body: { status: 'dead' },
    });
    expect(replay.status, replay.text).toBe(202);
    await runReplayJob(t.ctx, replay.body!.job_id as string);
    const replays = await t.ctx.db.query<{ replay_of: string; team_id: string; webhook_id: string }>(
      'select replay_of, team_id, webhook_id from deliveries where replay_job_id = $1',
      [replay.body!.job_id],
    );
    expect(replays.rows, 'the replay job sent our dead delivery again, in our team and webhook').toEqual([
      { replay_of: ourDead, team_id: owner.teamId, webhook_id: ourHook },
    ]);
    const theirDeliveries = await t.ctx.db.query<{ n: number }>(
      'select count(*)::int as n from deliveries where webhook_id = $1',
      [theirHook],
    );
    expect(theirDeliveries.rows[0]!.n, 'no delivery added to their webhook').toBe(1);

    const countOf = async (teamId: string) =>
      (await t.ctx.db.query<{ n: number }>('select count(*)::int as n from submissions where team_id = $1', [teamId]))
        .rows[0]!.n;
    expect(await countOf(other.teamId)).toBe(2);
    const erasure = await rest('POST', '/v1/erasure', { token: owner.token, body: { email: 'a@example.test' } });
    expect(erasure.status, erasure.text).toBe(202);
    await runErasure(t.ctx, erasure.body!.erasure_id as string);
    expect(await countOf(owner.teamId), 'the erasure took our submissions').toBe(0);
    expect(await countOf(other.teamId), 'and none of theirs from the same person').toBe(2);
    const receipt = await rest('GET', `/v1/erasure/${erasure.body!.erasure_id as string}`, { token: owner.token });
    expect((receipt.body!.data as { erased: { forms: object } }).erased.forms).toEqual({ [ourForm]: 2 });
  });
});
