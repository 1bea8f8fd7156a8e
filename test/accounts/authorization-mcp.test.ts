import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { ABILITIES, ROLE_CEILINGS, ROLES, type Ability } from '../../contract/index.ts';
import { removeMember } from '../../server/domain/accounts/users.ts';
import { makeTeam, makeToken, type TestMember } from '../support/harness.ts';
import { changeRole, makeRecords, makeRoleMember, recordFactories } from '../support/team-records.ts';
import {
  MCP_ACCEPT,
  callTool,
  expect401,
  expectToolError,
  listServer,
  mcpClient,
  mcpPost,
  rawSession,
  routes,
  t,
  teamIds,
  toolArgs,
  toolCall,
  tried,
  unauthenticatedCases,
} from '../support/authorization.ts';

/** The authorization matrix over MCP (see test/support/authorization.ts): the tool list, every tool's 401s, sessions, resources. */
const { listedTools, listedResources, listedTemplates, routeOfTool, toolOfRoute } = await listServer();

describe('the MCP tool list', () => {
  it('every tool the server lists is the tool of a contract route (the matrix knows its ability and records)', () => {
    expect(listedTools.length).toBeGreaterThan(0);
    const unknown = listedTools.filter((tool) => !routeOfTool.get(tool.name)).map((tool) => tool.name);
    expect(
      unknown,
      'tools that are no contract route: teach test/support/authorization.ts their ability and records',
    ).toEqual([]);
  });

  it('every route but the event stream is a listed tool, and the tool asks for the route ability', () => {
    const missing = routes.filter((e) => !toolOfRoute.has(e.key) && e.key !== 'streamSubmissions').map((e) => e.key);
    expect(missing).toEqual([]);
    for (const tool of listedTools) {
      const entry = routeOfTool.get(tool.name)!;
      if (entry.meta.ability) expect(tool.description, tool.name).toContain(`\`${entry.meta.ability}\``);
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Every listed tool: 401 at the HTTP level, stateless and inside a session

describe.each(listedTools.map((tool) => [tool.name, tool] as const))('MCP tool %s', (name) => {
  it('answers 401 in the error shape with WWW-Authenticate: no token, Basic, unknown, revoked, expired — stateless and in a session', async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const entry = routeOfTool.get(name)!;
    const args = toolArgs(
      entry.key,
      Object.fromEntries(entry.params.map((p) => [p, `${p}_00000000000000000000000000`])),
    );
    for (const c of await unauthenticatedCases(owner)) {
      expect401(await mcpPost(c.authorization, toolCall(name, args)), `${name} ${c.name}`, c.invalidToken);
    }

    // A session whose token is revoked, or expires, stops at once; so does one that loses its header.
    const doomed = await makeToken(t, owner);
    const session = await rawSession(doomed.token);
    const live = await mcpPost(`Bearer ${doomed.token}`, toolCall(name, args), session);
    expect(live.status, `${name} live session: ${live.text}`).toBe(200);
    expect401(await mcpPost(undefined, toolCall(name, args), session), `${name} session without a token`, false);
    await t.ctx.db.query(`update api_tokens set expires_at = now() - interval '1 second' where id = $1`, [
      doomed.tokenId,
    ]);
    expect401(
      await mcpPost(`Bearer ${doomed.token}`, toolCall(name, args), session),
      `${name} session, token expired`,
      true,
    );

    const revoked = await makeToken(t, owner);
    const second = await rawSession(revoked.token);
    await t.ctx.db.query('update api_tokens set revoked_at = now() where id = $1', [revoked.tokenId]);
    expect401(
      await mcpPost(`Bearer ${revoked.token}`, toolCall(name, args), second),
      `${name} session, token revoked`,
      true,
    );

    // Another valid token cannot ride a session it did not start.
    const hijack = await mcpPost(`Bearer ${owner.token}`, toolCall(name, args), second);
    expect(hijack.status, `${name} another token's session: ${hijack.text}`).toBe(404);
  });
});

describe('MCP over HTTP', () => {
  it('GET and DELETE /mcp answer 401 too, before anything else', async () => {
    const owner = await makeTeam(t, { plan: 'scale' });
    const session = await rawSession(owner.token);
    for (const c of await unauthenticatedCases(owner)) {
      for (const method of ['GET', 'DELETE'] as const) {
        tried.mcp++;
        const headers: Record<string, string> = { accept: MCP_ACCEPT, 'mcp-session-id': session };
        if (c.authorization) headers.authorization = c.authorization;
        const res = await fetch(`${t.baseUrl}/mcp`, { method, headers });
        const text = await res.text();
        expect401(
          { status: res.status, headers: res.headers, text, body: JSON.parse(text) as Record<string, unknown> },
          `${method} /mcp ${c.name}`,
          c.invalidToken,
        );
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// A live MCP session sees role changes and removals at its next call

describe('MCP sessions follow the member', () => {
  it('a role lowered during a session narrows every tool at once; a removal ends the session (401)', async () => {
    const team = await makeTeam(t, { plan: 'scale' });
    let member = await makeRoleMember(t, team.teamId, 'admin');
    const client = await mcpClient(member.token);
    try {
      const outside = listedTools.filter((tool) => {
        const ability = routeOfTool.get(tool.name)!.meta.ability;
        return ability !== null && !ROLE_CEILINGS.viewer.includes(ability);
      });
      expect(outside.length).toBeGreaterThan(0);
      member = await changeRole(t, member, 'viewer');
      for (const tool of outside) {
        const entry = routeOfTool.get(tool.name)!;
        const args = toolArgs(
          entry.key,
          Object.fromEntries(entry.params.map((p) => [p, `${p}_00000000000000000000000000`])),
        );
        expectToolError(await callTool(client, tool.name, args), 'forbidden', `${tool.name} after lowering to viewer`, {
          required: entry.meta.ability,
        });
      }
      await removeMember(t.ctx, { teamId: team.teamId, userId: member.userId });
      tried.mcp++;
      await expect(client.callTool({ name: 'get_me', arguments: {} }), 'a removed member').rejects.toThrow(
        /401|unauthenticated|invalid or has been revoked/i,
      );
    } finally {
      await client.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// MCP resources

/** Fills a resource template's `{name}` variables with records of `member`'s team. */
async function fillTemplate(template: string, member: TestMember): Promise<string> {
  const names = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const made = await makeRecords(t, member, names);
  return template.replace(/\{(\w+)\}/g, (_, name: string) => made[name]!);
}

async function readResource(
  client: Client,
  uri: string,
): Promise<{ ok: true; text: string } | { ok: false; message: string }> {
  tried.mcp++;
  try {
    const result = await client.readResource({ uri });
    return { ok: true, text: result.contents.map((c) => ('text' in c ? c.text : '')).join('\n') };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

/** The ability behind each resource (the route it reads through, or its own check); a new resource needs a line here. */
const RESOURCE_ABILITIES: Record<string, Ability> = {
  forms: 'forms:read',
  form: 'forms:read',
  'recent-submissions': 'submissions:read',
  submission: 'submissions:read',
  'form-stats': 'submissions:read',
  insights: 'insights:read',
  usage: 'billing:read',
};

describe('MCP resources', () => {
  const uris = [...listedResources.map((r) => r.uri), ...listedTemplates.map((r) => r.uriTemplate)];

  it('the server lists resources', () => {
    expect(uris.length).toBeGreaterThan(0);
  });

  const named = [
    ...listedResources.map((r) => ({ name: r.name, uri: r.uri })),
    ...listedTemplates.map((r) => ({ name: r.name, uri: r.uriTemplate })),
  ];

  it('every listed resource has its ability in RESOURCE_ABILITIES', () => {
    expect(named.map((r) => r.name).sort()).toEqual(Object.keys(RESOURCE_ABILITIES).sort());
  });

  it.each(named.map((r) => [r.uri, r] as const))(
    '%s: each role reads it when its ceiling holds the ability; a token lacking only that ability is refused',
    async (_uri, { name, uri }) => {
      const ability = RESOURCE_ABILITIES[name]!;
      const team = await makeTeam(t, { plan: 'scale' });
      const target = await fillTemplate(uri, team);
      const allBut = await makeToken(
        t,
        team,
        ABILITIES.filter((a) => a !== ability),
      );
      const lacking = await mcpClient(allBut.token);
      try {
        const refused = await readResource(lacking, target);
        expect(refused.ok, `${uri} lacking ${ability}`).toBe(false);
        if (!refused.ok) expect(refused.message, uri).toMatch(/forbidden/);
      } finally {
        await lacking.close();
      }
      for (const role of ROLES) {
        const member = await makeRoleMember(t, team.teamId, role);
        const client = await mcpClient(member.token);
        try {
          const read = await readResource(client, target);
          if (ROLE_CEILINGS[role].includes(ability))
            expect(read.ok, `${uri} as ${role}: ${JSON.stringify(read)}`).toBe(true);
          else {
            expect(read.ok, `${uri} as ${role}`).toBe(false);
            if (!read.ok) expect(read.message, `${uri} as ${role}`).toMatch(/forbidden/);
          }
        } finally {
          await client.close();
        }
      }
    },
  );

  it.each(uris)(
    '%s: a token without the abilities is refused, another team reads nothing of ours, its own team reads it',
    async (uri) => {
      const owner = await makeTeam(t, { plan: 'scale' });
      // tokens:read is needed by no resource.
      const bare = await makeToken(t, owner, ['tokens:read']);
      const other = await makeTeam(t, { plan: 'scale' });
      await makeRecords(t, owner, Object.keys(recordFactories));
      const ours = await fillTemplate(uri, owner);
      const ourIds = await teamIds(owner.teamId);

      const bareClient = await mcpClient(bare.token);
      const otherClient = await mcpClient(other.token);
      const ownClient = await mcpClient(owner.token);
      try {
        const refused = await readResource(bareClient, ours);
        expect(refused.ok, `${uri} without abilities`).toBe(false);
        if (!refused.ok) expect(refused.message, uri).toMatch(/forbidden/);

        const own = await readResource(ownClient, ours);
        expect(own.ok, `${uri} own team: ${JSON.stringify(own)}`).toBe(true);

        const theirs = await readResource(otherClient, ours);
        if (uri.includes('{')) {
          expect(theirs.ok, `${uri} another team`).toBe(false);
          if (!theirs.ok) expect(theirs.message, uri).toMatch(/not_found/);
        } else {
          // A fixed URI reads the caller's own team.
          expect(theirs.ok, `${uri} another team: ${JSON.stringify(theirs)}`).toBe(true);
        }
        const text = theirs.ok ? theirs.text : theirs.message;
        for (const id of ourIds.filter((i) => !ours.includes(i)))
          expect(text, `${uri}: another team sees our ${id}`).not.toContain(id);
      } finally {
        await Promise.all([bareClient.close(), otherClient.close(), ownClient.close()]);
      }
    },
  );
});
