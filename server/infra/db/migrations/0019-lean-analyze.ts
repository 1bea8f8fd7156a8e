import { Migration } from '@mikro-orm/migrations';

/**
 * No planner statistics for the wide columns no statement filters, sorts or joins on (issue 25).
 *
 * Autovacuum re-analyzes `submissions` and `deliveries` as they churn (on a busy service, about once a
 * minute each). An ANALYZE samples up to 30,000 rows and builds most-common values and a histogram for
 * every column: for the submitted payload, its metadata, the autoresponse and the AI verdict (jsonb), and
 * a delivery's request and response bodies and error (text), that is sorting tens of thousands of
 * kilobyte-sized values — most of the ANALYZE's CPU, spent in one uninterrupted burst (autovacuum's cost
 * delay paces its page reads, not that sort) while every team's requests wait for a core.
 * Measured on 80,000 bench submissions: 420 ms an ANALYZE with them, 253 ms without (bench/README.md,
 * noisy-neighbour). Nothing reads those statistics: these columns appear only in select lists and `set`
 * clauses (`payload ->> 'field'` in an export is computed per row, not estimated). The columns that are
 * filtered keep theirs, `search` included (its lexeme frequencies choose between the search index and a
 * walk of the folder's index).
 */
export class Migration0019LeanAnalyze extends Migration {
  override name = '0019-lean-analyze';

  override up(): void {
    this.addSql(wideColumns.map(([table, column]) => `alter table ${table} alter column ${column} set statistics 0;`).join('\n'));
  }

  override down(): void {
    this.addSql(wideColumns.map(([table, column]) => `alter table ${table} alter column ${column} set statistics -1;`).join('\n'));
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
