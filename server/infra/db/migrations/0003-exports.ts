import { Migration } from '@mikro-orm/migrations';

export class Migration0003Exports extends Migration {
  override name = '0003-exports';

  override up(): void {
    // hmac() signs export download links inside the streamed COPY (trusted extension since Postgres 13).
    this.addSql(`create extension if not exists pgcrypto;`);
    // Spreadsheets execute cells that start with = + - @ or a tab/CR: prefix them with a quote.
    this.addSql(`
      create function csv_safe(value text) returns text language sql immutable parallel safe as $$
        select case when value ~ '^[=+\\-@\\t\\r]' then '''' || value else value end
      $$;`);
  }
}
