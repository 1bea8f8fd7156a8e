import type { Sql } from '../database.ts';
import { valuesLists } from '../values.ts';

/** Notification addresses of a team and whether each has confirmed (addresses are stored lower-cased). */

export type AddressRow = { email: string; verified: boolean };

export async function addressStates(sql: Sql, teamId: string, emails: string[]): Promise<Map<string, boolean>> {
  if (!emails.length) return new Map();
  const { rows } = await sql.query<AddressRow>(
    'select email, verified_at is not null as verified from notification_addresses where team_id = $1 and email = any($2::text[])',
    [teamId, emails],
  );
  return new Map(rows.map((r) => [r.email, r.verified]));
}

/**
 * Records the addresses and claims a confirmation e-mail for each one that is not confirmed and was not
 * sent one in the last hour (so saving a form again re-sends, but not more than hourly). Returns those.
 * The conflict clauses read the time only from `excluded`: Citus allows no stable function (now()) there.
 */
export async function claimConfirmations(sql: Sql, teamId: string, emails: string[]): Promise<string[]> {
  const claimed: string[] = [];
  for (const list of valuesLists(emails, (e, p) => `($1, ${p(e)}, now())`, [teamId])) {
    const { rows } = await sql.query<{ email: string }>(
      `insert into notification_addresses as a (team_id, email, confirmation_sent_at)
       values ${list.rows}
       on conflict (team_id, email) do update set confirmation_sent_at = excluded.confirmation_sent_at
        where a.verified_at is null
          and (a.confirmation_sent_at is null or excluded.confirmation_sent_at - a.confirmation_sent_at > interval '1 hour')
       returning email`,
      list.values,
    );
    claimed.push(...rows.map((r) => r.email));
  }
  return claimed;
}

/** Marks the address confirmed (the first confirmation's time is kept); false when the team is gone. */
export async function confirmAddress(sql: Sql, teamId: string, email: string): Promise<boolean> {
  try {
    await sql.query(
      `insert into notification_addresses as a (team_id, email, verified_at) values ($1, $2, now())
       on conflict (team_id, email) do update set verified_at = coalesce(a.verified_at, excluded.verified_at)`,
      [teamId, email],
    );
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === '23503') return false; // the team's foreign key: it is gone
    throw err;
  }
}

export async function teamName(sql: Sql, teamId: string): Promise<string | null> {
  const { rows } = await sql.query<{ name: string }>('select name from teams where id = $1', [teamId]);
  return rows[0]?.name ?? null;
}

/** An address that unsubscribed must confirm again before a form of the team notifies it. */
export async function forgetConfirmation(sql: Sql, teamId: string, email: string): Promise<void> {
  await sql.query(
    'update notification_addresses set verified_at = null, confirmation_sent_at = null where team_id = $1 and email = $2',
    [teamId, email],
  );
}
