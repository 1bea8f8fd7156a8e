import type { Sql, Tx } from '../database.ts';

/** Leases of running exports (table export_leases): how many exports a team runs, across processes. */

export type ExportLease = { id: string; teamId: string; tokenId: string; formId: string; seconds: number };

/**
 * Takes a lease unless the team already holds `limit` live ones (a lease its process stopped renewing has
 * expired and counts for nothing). Serialised per team by a transaction lock, so two processes cannot
 * both take the last one. True when taken.
 */
export async function takeExportLease(tx: Tx, lease: ExportLease, limit: number): Promise<boolean> {
  await tx.query('select pg_advisory_xact_lock(781237, hashtext($1))', [lease.teamId]);
  // Leases of exports that died with their process, any team's: the table stays as small as what runs.
  await tx.query('delete from export_leases where expires_at <= now()');
  const { rows } = await tx.query<{ held: number }>('select count(*)::int as held from export_leases where team_id = $1 and expires_at > now()', [
    lease.teamId,
  ]);
  if (rows[0]!.held >= limit) return false;
  await tx.query(
    `insert into export_leases (id, team_id, token_id, form_id, expires_at) values ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
    [lease.id, lease.teamId, lease.tokenId, lease.formId, lease.seconds],
  );
  return true;
}

export async function renewExportLease(sql: Sql, lease: ExportLease): Promise<void> {
  await sql.query('update export_leases set expires_at = now() + make_interval(secs => $2) where id = $1', [lease.id, lease.seconds], 'intake_export_lease_renew');
}

export async function dropExportLease(sql: Sql, id: string): Promise<void> {
  await sql.query('delete from export_leases where id = $1', [id]);
}
