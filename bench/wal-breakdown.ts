/**
 * Where a stretch of WAL went, from pg_walinspect (Postgres 16+; `create extension pg_walinspect`): bytes,
 * full-page-image bytes and records per relation — each record counted once, under the relation of its first
 * block, TOAST named after its owner — or per record kind for records without blocks (commits). What no
 * record holds (page headers, alignment) is the remainder. Used by bench/wal-per-post.ts and the ingest
 * bench's --wal-breakdown.
 */
import type pg from 'pg';

export type WalLine = { what: string; bytes: number; fpiBytes: number; records: number };

const breakdown = (byRecord: boolean) => `
  with blocks as (
    select start_lsn, block_id, record_length, block_fpi_length, resource_manager, record_type,
           case when reldatabase = (select oid from pg_database where datname = current_database())
                then pg_filenode_relation(case when reltablespace = 1663 then 0 else reltablespace end, relfilenode) end as rel,
           relfilenode, relforknumber
      from pg_get_wal_block_info($1::pg_lsn, $2::pg_lsn, false)),
  named as (
    select b.*, coalesce(
             (select 'TOAST of ' || o.oid::regclass::text from pg_class o where o.reltoastrelid = b.rel),
             (select 'TOAST index of ' || o.oid::regclass::text from pg_class o join pg_index i on i.indrelid = o.reltoastrelid where i.indexrelid = b.rel),
             b.rel::regclass::text,
             'filenode ' || b.relfilenode) || case when b.relforknumber <> 0 then ' (fork ' || b.relforknumber || ')' else '' end as what
      from blocks b),
  per_record as (
    select start_lsn, min(block_id) as first_block, sum(block_fpi_length) as fpi from named group by start_lsn)
  select n.what${byRecord ? " || ' ' || n.resource_manager || '/' || split_part(n.record_type, ' ', 1)" : ''} as what, sum(n.record_length)::bigint as bytes, sum(p.fpi)::bigint as fpi_bytes, count(*)::int as records
    from named n join per_record p on p.start_lsn = n.start_lsn and p.first_block = n.block_id
   group by 1
  union all
  select resource_manager || '/' || split_part(record_type, ' ', 1), sum(record_length)::bigint, sum(fpi_length)::bigint, count(*)::int
    from pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn) r
   where not exists (select 1 from pg_get_wal_block_info($1::pg_lsn, $2::pg_lsn, false) b where b.start_lsn = r.start_lsn)
   group by 1
   order by 2 desc`;

export async function walBreakdown(
  c: pg.Client,
  from: string,
  to: string,
  totalBytes: number,
  byRecord = false,
): Promise<WalLine[]> {
  const { rows } = await c.query<{ what: string; bytes: string; fpi_bytes: string; records: number }>(
    breakdown(byRecord),
    [from, to],
  );
  const lines: WalLine[] = rows.map((r) => ({
    what: r.what,
    bytes: Number(r.bytes),
    fpiBytes: Number(r.fpi_bytes),
    records: r.records,
  }));
  const inRecords = lines.reduce((n, l) => n + l.bytes, 0);
  lines.push({ what: 'page headers, alignment (no record)', bytes: totalBytes - inRecords, fpiBytes: 0, records: 0 });
  return lines;
}

/** The lines as a table, per post. */
export function walTable(lines: WalLine[], posts: number, indent = '  '): string[] {
  const out = [`${indent}${'B/post'.padStart(7)} ${'FPI B/post'.padStart(10)} ${'rec/post'.padStart(8)}  where`];
  for (const l of lines) {
    if (Math.abs(l.bytes) / posts < 0.5) continue;
    const per = (n: number) => (n / posts).toFixed(n / posts < 10 ? 1 : 0);
    out.push(
      `${indent}${per(l.bytes).padStart(7)} ${per(l.fpiBytes).padStart(10)} ${(l.records / posts).toFixed(2).padStart(8)}  ${l.what}`,
    );
  }
  return out;
}
