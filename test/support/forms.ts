import type { TestApp, TestMember } from './harness.ts';
import { bearer } from './harness.ts';

/** A published form of the member's team, with optional settings. */
export async function makePublishedForm(
  t: TestApp,
  member: TestMember,
  body: Record<string, unknown> = {},
): Promise<{ id: string; endpoint: string }> {
  const created = await t.http
    .post('/v1/forms')
    .set(bearer(member.token))
    .send({ name: 'Contact', ...body });
  if (created.status !== 201) throw new Error(`form create failed: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.data.id as string;
  const published = await t.http.post(`/v1/forms/${id}/publish`).set(bearer(member.token));
  if (published.status !== 200) throw new Error(`publish failed: ${published.status}`);
  return { id, endpoint: `/f/${id}` };
}

export type StoredSubmission = {
  id: string;
  status: string;
  spam_reason: string | null;
  category: string | null;
  ai_moderation: Record<string, unknown> | null;
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
};

export async function submissionsOf(t: TestApp, formId: string): Promise<StoredSubmission[]> {
  const { rows } = await t.ctx.db.query<StoredSubmission>(
    'select id, status, spam_reason, category, ai_moderation, payload, metadata from submissions where form_id = $1 order by received_at, id',
    [formId],
  );
  return rows;
}

export async function filesOf(t: TestApp, formId: string) {
  const { rows } = await t.ctx.db.query<{
    id: string;
    submission_id: string;
    field: string;
    filename: string;
    content_type: string;
    size_bytes: string;
    storage_key: string;
  }>('select * from submission_files where form_id = $1 order by created_at, id', [formId]);
  return rows;
}

export async function readObject(t: TestApp, key: string): Promise<Buffer> {
  const stream = await t.ctx.storage.get(key);
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
