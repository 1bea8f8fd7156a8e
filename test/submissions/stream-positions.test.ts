import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { newId } from '../../server/domain/shared/ids.ts';
import { migrate, openDatabase } from '../../server/infra/db/database.ts';
import { numberStreamEvents } from '../../server/infra/db/queries/stream-heads.ts';
import { positionOfSnapshot, streamEvents } from '../../server/infra/db/queries/submission-stream.ts';
import { makePublishedForm } from '../support/forms.ts';
import { bearer, makeTeam, startTestApp } from '../support/harness.ts';
import { privateDatabaseUrl, tempDataDir } from '../support/processing.ts';

/**
 * Stream positions made before stream numbers (migration 0031): events already made are numbered in their
 * transactions' order, and an event id or a webhook's spam position of the snapshot kind resumes at the
 * first event it had not sent (docs/listen.md).
 */
const t = await startTestApp();
const m30 = { url: await privateDatabaseUrl(), dataDir: tempDataDir() };

/** A version-1 event id: the snapshot `xmin:xmax:xip,…` as base-36 numbers, the later ones relative to xmin. */
function snapshotEventId(formId: string, snapshot: string): string {
  const [xmin = '0', xmax = '0', xip = ''] = snapshot.split(':');
  const base = BigInt(xmin);
  const parts = [base, BigInt(xmax) - base, ...(xip ? xip.split(',').map((x) => BigInt(x) - base) : [])];
  const packed = parts.map((n) => n.toString(36)).join('.');
  return Buffer.from(JSON.stringify([1, formId, 0, packed, null, null, null])).toString('base64url');
}

const snapshotNow = async (client: { query: pg.Client['query'] }) =>
  (await client.query<{ s: string }>('select pg_current_snapshot()::text as s')).rows[0]!.s;

describe('stream positions of the snapshot kind', () => {
  it('migration 0031 numbers the events in their transactions’ order; a snapshot resumes at the first event not sent', async () => {
    const db = await openDatabase(loadConfig({ DATABASE_URL: m30.url, INTAKE_DATA_DIR: m30.dataDir }), {
      connections: 3,
    });
    onTestFinished(() => db.close());
    await db.orm.migrator.up({ to: '0030-counted-deletes' });
    const q = (text: string, values: unknown[] = []) => db.db.query(text, values);
    await q(`insert into teams (id, name, plan_id) values ('team_a', 'A', 'free')`);
    await q(`insert into forms (id, team_id, name, status) values ('frm_a', 'team_a', 'A', 'published')`);
    const event = (id: string, sql: { query: pg.Client['query'] } = db.db as never) =>
      sql.query(
        `insert into submissions (id, team_id, form_id, status, payload, metadata, stream_xid)
         values ($1, 'team_a', 'frm_a', 'processed', '{}', '{}', pg_current_xact_id())`,
        [id],
      );
    await event('subm_1');
    // subm_2's transaction began first and commits last: a snapshot taken between saw subm_3, not subm_2.
    const held = new pg.Client({ connectionString: m30.url });
    await held.connect();
    onTestFinished(() => held.end().catch(() => {}));
    await held.query('begin');
    await event('subm_2', held);
    await event('subm_3');
    const between = await snapshotNow(db.db as never);
    await held.query('commit');
    const after = await snapshotNow(db.db as never);

    expect(await migrate(db)).toContain('0031-stream-positions');
    const { rows } = await q(`select submission_id as id, seq::int as seq from stream_numbers order by seq`);
    expect(rows).toEqual([
      { id: 'subm_1', seq: 1 },
      { id: 'subm_2', seq: 2 },
      { id: 'subm_3', seq: 3 },
    ]);
    expect((await q(`select position::int as p from stream_heads where form_id = 'frm_a'`)).rows).toEqual([{ p: 3 }]);
    // An event made after the migration takes the next number.
    await q(`insert into submissions (id, team_id, form_id, status, payload, metadata)
             values ('subm_4', 'team_a', 'frm_a', 'processed', '{}', '{}')`);
    await numberStreamEvents(db.db, 'team_a', 'frm_a', ['subm_4']);

    const scope = { teamId: 'team_a', formId: 'frm_a', statuses: ['processed'] };
    const resumed = async (past: string) => {
      const from = await positionOfSnapshot(db.db, { ...scope, past, within: null });
      return (await streamEvents(db.db, { ...scope, after: from, limit: 100 })).map((r) => r.id);
    };
    // subm_2 was not sent: it and what follows (subm_3 again: at least once, never lost).
    expect(await resumed(between)).toEqual(['subm_2', 'subm_3', 'subm_4']);
    // Everything old was sent: the events made since the migration.
    expect(await resumed(after)).toEqual(['subm_4']);
  });

  it('GET …/stream resumes from an event id of the snapshot kind', async () => {
    const owner = await makeTeam(t);
    const form = await makePublishedForm(t, owner);
    const made = newId('subm');
    const old = snapshotEventId(form.id, await snapshotNow(t.ctx.db as never));
    await t.ctx.db.query(
      `insert into submissions (id, team_id, form_id, status, payload, metadata, stream_xid)
       values ($1, $3, $2, 'processed', '{"n":1}', '{}', pg_current_xact_id())`,
      [made, form.id, owner.teamId],
    );
    await numberStreamEvents(t.ctx.db, owner.teamId, form.id, [made]);
    const path = `/v1/forms/${form.id}/submissions/stream`;
    const res = await t.http.get(path).query({ last_event_id: old }).set(bearer(owner.token));
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((e: { submission: { submission_id: string } }) => e.submission.submission_id)).toEqual([
      made,
    ]);
    // Its last_event_id is of the new kind, and resumes after it.
    const next = await t.http.get(path).query({ last_event_id: res.body.meta.last_event_id }).set(bearer(owner.token));
    expect(next.body.data).toEqual([]);
    const foreign = await t.http
      .get(path)
      .query({ last_event_id: snapshotEventId('frm_other', '1:1:') })
      .set(bearer(owner.token));
    expect(foreign.status).toBe(400);
  });
});
