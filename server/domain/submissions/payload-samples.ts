import type { PayloadCursor } from '../../infra/db/queries/forms.ts';

/** The most a sample reads at once: bounded in bytes as well as rows, since one payload may hold a megabyte. */
export type SampleLimits = { rows: number; bytes: number };

/** Rows per query, and the stored bytes past which a query's page ends (one large payload may end it alone). */
const PAGE_ROWS = 100;
const PAGE_BYTES = 1024 * 1024;

/**
 * Reads payloads newest first, page by page, handing each to `take` parsed, until `limits.rows` rows or
 * `limits.bytes` bytes of payload text have been read: the rest of the data is never fetched. What `take`
 * keeps of a payload is its own business; nothing else of a page outlives it.
 */
export async function samplePayloads<R extends { payload: string; at: string; id: string }>(
  page: (after: PayloadCursor | null, rows: number, bytes: number) => Promise<R[]>,
  limits: SampleLimits,
  take: (row: R, payload: Record<string, unknown>) => void,
): Promise<{ rows: number; bytes: number }> {
  let rows = 0;
  let bytes = 0;
  let after: PayloadCursor | null = null;
  while (rows < limits.rows && bytes < limits.bytes) {
    const batch = await page(
      after,
      Math.min(PAGE_ROWS, limits.rows - rows),
      Math.min(PAGE_BYTES, limits.bytes - bytes),
    );
    for (const row of batch) {
      rows += 1;
      bytes += Buffer.byteLength(row.payload);
      take(row, JSON.parse(row.payload) as Record<string, unknown>);
    }
    if (batch.length === 0) break;
    const last = batch[batch.length - 1]!;
    after = { at: last.at, id: last.id };
  }
  return { rows, bytes };
}
