import { Migration } from '@mikro-orm/migrations';

/**
 * No planner statistics for the wide columns no statement filters, sorts or joins on (payloads, metadata,
 * delivery bodies): sorting their samples is most of an ANALYZE's CPU, and nothing reads them
 * (docs/decisions.md). Filtered columns, `search` included, keep theirs.
 */
export class Migration0019LeanAnalyze extends Migration {
  override name = '0019-lean-analyze';

  override up(): void {
    this.addSql(
      wideColumns.map(([table, column]) => `alter table ${table} alter column ${column} set statistics 0;`).join('\n'),
    );
  }

  override down(): void {
    this.addSql(
      wideColumns.map(([table, column]) => `alter table ${table} alter column ${column} set statistics -1;`).join('\n'),
    );
  }
}

/** The wide columns no statement filters on: their statistics would only cost ANALYZE time. */
export const wideColumns = [
  ['submissions', 'payload'],
  ['submissions', 'metadata'],
  ['submissions', 'autoresponse'],
  ['submissions', 'ai_moderation'],
  ['deliveries', 'request_body'],
  ['deliveries', 'response_body'],
  ['deliveries', 'error'],
] as const;
