/** The owner of `teams`, `users` and `memberships`. */
import { LockMode, type InferEntity } from '@mikro-orm/core';
import type { Sql, Tx } from '../database.ts';
import { Membership, Team, User } from '../entities.ts';
import { entityManager } from './entity-manager.ts';
import { USABLE_TOKEN } from './tokens.ts';

export type TeamRecord = InferEntity<typeof Team>;
export type UserRecord = InferEntity<typeof User>;
export type MembershipRecord = InferEntity<typeof Membership>;

export async function findTeam(on: Sql, id: string): Promise<TeamRecord | null> {
  return entityManager(on).findOne(Team, { id });
}

/** The oldest team with this name. */
export async function findTeamByName(on: Sql, name: string): Promise<TeamRecord | null> {
  return entityManager(on).findOne(Team, { name }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

export async function insertTeam(tx: Tx, t: { id: string; name: string; planId: string }): Promise<TeamRecord> {
  const team = entityManager(tx).create(Team, { ...t, createdAt: new Date() });
  // Foreign keys are plain columns, so the unit of work cannot order this insert before the rows that reference it.
  await entityManager(tx).flush();
  return team;
}

export async function setTeamPlan(tx: Tx, teamId: string, planId: string): Promise<TeamRecord> {
  const team = await entityManager(tx).findOneOrFail(Team, { id: teamId });
  team.planId = planId;
  await entityManager(tx).flush();
  return team;
}

export async function getUser(on: Sql, id: string): Promise<UserRecord> {
  return entityManager(on).findOneOrFail(User, { id });
}

export async function insertUser(tx: Tx, u: { id: string; email: string; name: string }): Promise<UserRecord> {
  const user = entityManager(tx).create(User, { ...u, createdAt: new Date() });
  await entityManager(tx).flush(); // before the membership row that references it
  return user;
}

export async function findMembership(on: Sql, teamId: string, userId: string): Promise<MembershipRecord | null> {
  return entityManager(on).findOne(Membership, { teamId, userId });
}

/** Makes the user a member with this role, or gives an existing member this role. */
export async function putMembership(tx: Tx, m: { teamId: string; userId: string; role: string }): Promise<void> {
  const member = await entityManager(tx).findOne(Membership, { teamId: m.teamId, userId: m.userId });
  if (member) member.role = m.role;
  else entityManager(tx).create(Membership, { ...m, createdAt: new Date() });
  await entityManager(tx).flush();
}

/** The team's owners' rows and the member's, locked until the transaction ends. */
export async function lockOwnersAndMember(
  tx: Tx,
  teamId: string,
  userId: string,
): Promise<{ owners: MembershipRecord[]; member: MembershipRecord | null }> {
  const owners = await entityManager(tx).find(
    Membership,
    { teamId, role: 'owner' },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  const member = await entityManager(tx).findOne(
    Membership,
    { teamId, userId },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  return { owners, member };
}

export async function deleteMembership(tx: Tx, teamId: string, userId: string): Promise<void> {
  await entityManager(tx).nativeDelete(Membership, { teamId, userId });
}

export async function memberCount(sql: Sql, teamId: string): Promise<number> {
  const { rows } = await sql.query<{ n: number }>('select count(*)::int as n from memberships where team_id = $1', [
    teamId,
  ]);
  return rows[0]!.n;
}

/** The period's accepted posts, live forms and stored file bytes of a team. */
export async function usageSummary(
  sql: Sql,
  teamId: string,
  periodStart: Date,
): Promise<{ submissions: number; forms: number; storage: number }> {
  const { rows } = await sql.query<{ submissions: string; forms: number; storage: string }>(
    `select
       coalesce((select sum(submissions) from usage_counters where team_id = $1 and period_start = $2), 0) as submissions,
       (select count(*)::int from forms where team_id = $1 and deleted_at is null) as forms,
       coalesce((select sum(size_bytes) from submission_files where team_id = $1), 0) as storage`,
    [teamId, periodStart],
  );
  const r = rows[0]!;
  return { submissions: Number(r.submissions), forms: r.forms, storage: Number(r.storage) };
}

/** A user by e-mail address, case-insensitively. */
export async function findUserIdByEmail(sql: Sql, email: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ id: string }>('select id from users where lower(email) = lower($1)', [email]);
  return rows[0]?.id;
}

export type TeamSummaryRow = {
  id: string;
  name: string;
  plan_id: string;
  created_at: string;
  member_count: number;
  token_count: number;
};

/** Every team with its member count and its members' usable token count, oldest first (operator listing). */
export async function listTeamSummaries(sql: Sql): Promise<TeamSummaryRow[]> {
  const { rows } = await sql.query<TeamSummaryRow>(
    `select tm.id, tm.name, tm.plan_id, tm.created_at,
            (select count(*)::int from memberships m where m.team_id = tm.id) as member_count,
            (select count(*)::int from api_tokens t join memberships m on m.team_id = t.team_id and m.user_id = t.user_id
              where t.team_id = tm.id and ${USABLE_TOKEN}) as token_count
       from teams tm
      order by tm.created_at, tm.id`,
  );
  return rows;
}

export type MemberRow = {
  id: string;
  email: string;
  name: string;
  role: string;
  joined_at: string;
  token_count: number;
};

/** A team's members with their role and usable token count, in the order they joined. */
export async function listMembers(sql: Sql, teamId: string): Promise<MemberRow[]> {
  const { rows } = await sql.query<MemberRow>(
    `select u.id, u.email, u.name, m.role, m.created_at as joined_at,
            (select count(*)::int from api_tokens t where t.team_id = m.team_id and t.user_id = m.user_id and ${USABLE_TOKEN}) as token_count
       from memberships m join users u on u.id = m.user_id
      where m.team_id = $1
      order by m.created_at, u.id`,
    [teamId],
  );
  return rows;
}

/** A member of the team as `{ id, email, name }`, or undefined. */
export async function findMember(
  sql: Sql,
  teamId: string,
  userId: string,
): Promise<{ id: string; email: string; name: string } | undefined> {
  const { rows } = await sql.query<{ id: string; email: string; name: string }>(
    `select u.id, u.email, u.name from memberships m join users u on u.id = m.user_id
      where m.team_id = $1 and m.user_id = $2`,
    [teamId, userId],
  );
  return rows[0];
}

/** A user and the token they act with, as an actor. */
export async function findActor(
  sql: Sql,
  userId: string,
  tokenId: string,
): Promise<{ id: string; email: string; name: string; token: { id: string; name: string } | null } | undefined> {
  const { rows } = await sql.query<{
    id: string;
    email: string;
    name: string;
    token: { id: string; name: string } | null;
  }>(
    `select u.id, u.email, u.name,
            (select json_build_object('id', t.id, 'name', t.name) from api_tokens t where t.id = $2) as token
       from users u where u.id = $1`,
    [userId, tokenId],
  );
  return rows[0];
}

/** Users by id, as `{ id, email, name }` (ids of users no longer there are left out). */
export async function findUsers(sql: Sql, ids: string[]): Promise<Array<{ id: string; email: string; name: string }>> {
  if (!ids.length) return [];
  const { rows } = await sql.query<{ id: string; email: string; name: string }>(
    'select id, email, name from users where id = any($1::text[])',
    [ids],
  );
  return rows;
}
