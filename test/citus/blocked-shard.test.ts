import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { processSubmission } from '../../server/domain/submissions/processing.ts';
import { appRefusingMultiShard } from '../support/citus-app.ts';
import { bearer, makeTeam, type TestMember } from '../support/harness.ts';

/**
 * A shard move or split ends by blocking writes to the shards it moves (Citus takes their metadata locks in
 * exclusive mode on the coordinator) until the new placement has caught up and its keys are built. Only the
 * teams on those shards may wait: a statement that reaches its shard through the coordinator (`insert …
 * select`, whose COPY locks the metadata of every shard of its table) would make every team's posts wait. Here
 * one team's shards are held the way a move holds them while another team posts, is processed (its webhook
 * delivery made), triaged and deleted. Skipped on plain Postgres.
 */
const app = await appRefusingMultiShard({ INTAKE_ALLOW_PRIVATE_WEBHOOKS: 'true' });
const t = app!;
const citus = app !== null;
const EXCLUSIVE = 7; // ExclusiveLock, as BlockWritesToShardList takes it

/** Every co-located shard holding team `teamId`'s rows. */
async function shardsOf(teamId: string): Promise<string[]> {
  const { rows } = await t.ctx.db.query<{ shardid: string }>(
    `select get_shard_id_for_distribution_column(p.logicalrelid, $1::text)::text as shardid
       from pg_dist_partition p
      where p.colocationid = (select colocationid from pg_dist_partition where logicalrelid = 'teams'::regclass)`,
    [teamId],
  );
  return rows.map((r) => r.shardid);
}

/** A team whose shards are not `blocked`'s. */
async function teamBeside(blocked: string[]): Promise<TestMember> {
  for (;;) {
    const team = await makeTeam(t);
    if (!(await shardsOf(team.teamId)).some((s) => blocked.includes(s))) return team;
  }
}

/** Holds the shards' metadata locks as a move's last phase does, until `release`. */
async function blockWrites(shards: string[]): Promise<{ release: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: t.config.databaseUrl });
  await client.connect();
  await client.query('begin');
  await client.query('select lock_shard_metadata($1, $2::bigint[])', [EXCLUSIVE, shards]);
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    await client.query('rollback');
    await client.end();
  };
  afterAll(release);
  return { release };
}

/** `what` settles within `ms`, or the test fails naming it. */
async function soon<T>(what: string, work: Promise<T>, ms = 5_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} waited on another team's blocked shards`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe.runIf(citus)('on Citus, a team whose shards are blocked holds back no other team', () => {
  it('posts of every kind, processing, deliveries, triage and a delete go on beside a blocked team', async () => {
    const blocked = await makeTeam(t);
    const blockedForm = await t.http.post('/v1/forms').set(bearer(blocked.token)).send({ name: 'Held' });
    const held = blockedForm.body.data.id as string;
    expect((await t.http.post(`/v1/forms/${held}/publish`).set(bearer(blocked.token))).status).toBe(200);
    const owner = await teamBeside(await shardsOf(blocked.teamId));
    const auth = bearer(owner.token);
    const created = await t.http
      .post('/v1/forms')
      .set(auth)
      .send({ name: 'Raffle', settings: { unique: [{ fields: ['email'], normalize: 'email' }] } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const form = created.body.data.id as string;
    expect((await t.http.post(`/v1/forms/${form}/publish`).set(auth)).status).toBe(200);
    const hook = await t.http
      .post(`/v1/forms/${form}/webhooks`)
      .set(auth)
      .send({ label: 'Receiver', url: 'https://127.0.0.1:9/hooks', events: ['submission.created'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);

    const { release } = await blockWrites(await shardsOf(blocked.teamId));
    // The blocked team's own post waits (the lock is the one a move takes) …
    const heldPost = t.http.post(`/f/${held}`).set('Accept', 'application/json').send({ email: 'held@example.com' });
    const waiting = heldPost.then((r) => r.status);
    try {
      // … while the other team's posts go on: a key, a unique value and new field names, door spam, a file.
      const first = await soon(
        'a post with a key, a unique value and new field names',
        t.http
          .post(`/f/${form}`)
          .set('Accept', 'application/json')
          .set('Idempotency-Key', 'k1')
          .send({ email: 'ada@example.com', company: 'Analytical Engines' }),
      );
      expect(first.status, JSON.stringify(first.body)).toBe(201);
      const spam = await soon(
        'door spam',
        t.http.post(`/f/${form}`).set('Accept', 'application/json').send({ email: 'bot@example.com', _gotcha: 'x' }),
      );
      expect(spam.status, JSON.stringify(spam.body)).toBe(201);
      const withFile = await soon(
        'a post with a file',
        t.http
          .post(`/f/${form}`)
          .set('Accept', 'application/json')
          .field('email', 'grace@example.com')
          .attach('cv', Buffer.from('%PDF-1.4 cv'), { filename: 'cv.pdf' }),
      );
      expect(withFile.status, JSON.stringify(withFile.body)).toBe(201);
      const server = await soon(
        'a server-side submission',
        t.http
          .post(`/v1/forms/${form}/submissions`)
          .set(auth)
          .send({ fields: { email: 'alan@example.com' } }),
      );
      expect(server.status, JSON.stringify(server.body)).toBe(201);

      // Processing: its verdict, its webhook delivery and its stream number.
      const id = first.body.id as string;
      expect(await soon('processing', processSubmission(t.ctx, id, { teamId: owner.teamId }))).toBe('processed');
      const deliveries = await soon(
        'the delivery log',
        t.http.get(`/v1/forms/${form}/webhooks/${hook.body.data.id}/deliveries`).set(auth),
      );
      expect(deliveries.body.data).toHaveLength(1);

      // Triage, a note, a move between folders and a delete.
      const triaged = await soon(
        'triage',
        t.http
          .put(`/v1/forms/${form}/submissions/${id}`)
          .set(auth)
          .send({ add_tags: ['vip'], stage: 'in_progress' }),
      );
      expect(triaged.status, JSON.stringify(triaged.body)).toBe(200);
      const note = await soon(
        'a note',
        t.http.post(`/v1/forms/${form}/submissions/${id}/notes`).set(auth).send({ body: 'Call back' }),
      );
      expect(note.status, JSON.stringify(note.body)).toBe(201);
      const marked = await soon(
        'marking spam',
        t.http.put(`/v1/forms/${form}/submissions/${server.body.data.id}`).set(auth).send({ status: 'spam' }),
      );
      expect(marked.status, JSON.stringify(marked.body)).toBe(200);
      const deleted = await soon(
        'a delete',
        t.http.delete(`/v1/forms/${form}/submissions/${withFile.body.id}`).set(auth),
      );
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);

      // The blocked team's post is still waiting: the lock held what a move holds.
      expect(await Promise.race([waiting, new Promise((r) => setTimeout(() => r('waiting'), 200))])).toBe('waiting');
    } finally {
      await release();
    }
    expect(await waiting).toBe(201);
  });
});
