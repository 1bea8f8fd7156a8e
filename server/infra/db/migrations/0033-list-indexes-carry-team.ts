import { Migration } from '@mikro-orm/migrations';

/**
 * Every statement on submissions names the team (the distribution key on Citus), so an index that lacks
 * `team_id` cannot answer a list page or a capped count alone: each entry it walks costs a heap read. The
 * indexes that lists, deep pages and the filters walk carry `team_id` (the category index the status too, for
 * the folder), so those walks are index-only (docs/decisions.md, "Triage columns on the submission").
 */
type ListIndex = { name: string; columns: string; where?: string; included: string[]; adds: string[] };

const INDEXES: ListIndex[] = [
  { name: 'submissions_inbox', columns: 'form_id, received_at, id', where: "status <> 'spam'", included: [], adds: [] },
  { name: 'submissions_spam', columns: 'form_id, received_at, id', where: "status = 'spam'", included: [], adds: [] },
  { name: 'submissions_all', columns: 'form_id, received_at, id', included: [], adds: [] },
  {
    name: 'submissions_team_category',
    columns: 'form_id, category, received_at, id',
    where: 'category is not null',
    included: [],
    adds: ['status'],
  },
  {
    name: 'submissions_stage',
    columns: 'form_id, stage, received_at, id',
    where: "stage <> 'new'",
    included: ['status', 'assignee_id'],
    adds: [],
  },
  {
    name: 'submissions_assignee',
    columns: 'form_id, assignee_id, received_at, id',
    where: 'assignee_id is not null',
    included: ['status', 'stage'],
    adds: [],
  },
  {
    name: 'submissions_tagged',
    columns: 'form_id, received_at, id',
    where: "tags <> '{}'",
    included: ['status', 'tags'],
    adds: [],
  },
];

function create(i: ListIndex, include: string[]): string {
  const included = include.length ? ` include (${include.join(', ')})` : '';
  return `create index ${i.name} on submissions (${i.columns})${included}${i.where ? ` where ${i.where}` : ''};`;
}

export class Migration0033ListIndexesCarryTeam extends Migration {
  override name = '0033-list-indexes-carry-team';

  override up(): void {
    for (const i of INDEXES) {
      this.addSql(`drop index ${i.name};`);
      this.addSql(create(i, [...i.included, ...i.adds, 'team_id']));
    }
  }

  override down(): void {
    for (const i of INDEXES) {
      this.addSql(`drop index ${i.name};`);
      this.addSql(create(i, i.included));
    }
  }
}
