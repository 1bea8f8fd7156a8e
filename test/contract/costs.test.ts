import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { QUEUE_SHARES, TEAM_CAPS, type RouteCost } from '../../contract/costs.ts';
import { inTeamScan } from '../../server/domain/accounts/team-scans.ts';
import { operations } from '../../server/operations/index.ts';
import { toolSpecs } from '../../server/transports/mcp/tools.ts';
import { operationBudgets, withBudgets } from '../../scripts/operation-budgets.ts';
import { makeTeam } from '../support/harness.ts';
import { makeRecords } from '../support/team-records.ts';
import { routeByKey, send, t } from '../support/authorization.ts';

/**
 * Every operation declares its cost (contract/costs.ts, on its route's metadata), generated over the
 * operation table and the MCP tool list: a route or tool without one fails here, and what is declared is
 * what meters it — the API budget is charged exactly where it is declared, and a declared scan is refused
 * while another scan of the team runs.
 */

const keys = Object.keys(operations);

function problems(cost: RouteCost | undefined): string[] {
  if (!cost) return ['no cost declared'];
  const found: string[] = [];
  if (!['api', 'submit', 'none'].includes(cost.budget)) found.push(`budget ${String(cost.budget)}`);
  const rows = cost.reads?.rows;
  if (!(rows === 'form' || rows === 'team' || (Number.isInteger(rows) && (rows as number) > 0)))
    found.push(`rows ${String(rows)}`);
  if (!(Number.isInteger(cost.reads?.payloadBytes) && cost.reads.payloadBytes >= 0))
    found.push(`payload bytes ${String(cost.reads?.payloadBytes)}`);
  if (cost.cap !== undefined && !(cost.cap in TEAM_CAPS)) found.push(`cap ${cost.cap}`);
  if (cost.queue !== undefined && !(cost.queue in QUEUE_SHARES)) found.push(`queue ${cost.queue}`);
  // A scan of all of a form's or team's rows is bounded by taking turns, and paid for from the API budget.
  if (typeof rows === 'string' && (cost.cap !== 'scans' || cost.budget !== 'api'))
    found.push('a scan without the scans cap and the API budget');
  return found;
}

describe('operation costs', () => {
  it('every operation and every MCP tool declares a well-formed cost', () => {
    expect(keys.length).toBeGreaterThan(40);
    for (const key of keys) expect(problems(routeByKey.get(key)?.meta.cost), key).toEqual([]);
    for (const spec of toolSpecs)
      expect(problems((spec.route.metadata as { cost?: RouteCost }).cost), spec.name).toEqual([]);
  });

  it("SECURITY.md lists each operation's budget as declared", () => {
    const security = readFileSync(new URL('../../SECURITY.md', import.meta.url), 'utf8');
    expect(withBudgets(security, operationBudgets()), 'run `npm run openapi`').toBe(security);
    for (const key of keys) expect(security).toContain(`| \`${key}\` `);
  });

  it(
    'a per-token budget (API or submit) is charged on exactly the routes that declare one',
    { timeout: 120_000 },
    async () => {
      const owner = await makeTeam(t, { plan: 'scale' });
      for (const key of keys) {
        const entry = routeByKey.get(key)!;
        const res = await send(entry, await makeRecords(t, owner, entry.params), { token: owner.token });
        expect(res.status, `${key}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
        const charged = res.headers.get('ratelimit') !== null;
        expect(charged, `${key} (${res.status}) declares budget ${entry.meta.cost.budget}`).toBe(
          entry.meta.cost.budget !== 'none',
        );
      }
    },
  );

  it(
    'a declared scan waits while another scan of the team runs, and another team scans meanwhile',
    { timeout: 60_000 },
    async () => {
      const scans = keys.filter((key) => routeByKey.get(key)!.meta.cost.cap === 'scans');
      expect(scans.sort()).toEqual([
        'createErasure',
        'forceDeleteForm',
        'listFormStages',
        'listFormTags',
        'pruneFormFields',
      ]);
      const owner = await makeTeam(t, { plan: 'scale' });
      const other = await makeTeam(t, { plan: 'scale' });
      for (const key of scans) {
        const entry = routeByKey.get(key)!;
        // The team's scan, held until released; it may first wait out the spacing after the last one.
        let release!: () => void;
        let holding!: () => void;
        const holds = new Promise<void>((resolve) => (holding = resolve));
        const held = inTeamScan(
          t.ctx,
          owner.teamId,
          () => new Promise<void>((resolve) => ((release = resolve), holding())),
        );
        await holds;
        let answered = false;
        const waiting = send(entry, await makeRecords(t, owner, entry.params), { token: owner.token }).then(
          (res) => ((answered = true), res),
        );
        const beside = await send(entry, await makeRecords(t, other, entry.params), { token: other.token });
        expect(beside.status, `${key}, another team`).toBeLessThan(300);
        expect(answered, `${key} ran beside another scan of its team`).toBe(false);
        release();
        await held;
        expect((await waiting).status, key).toBeLessThan(300);
      }
    },
  );
});
