import { Migration } from '@mikro-orm/migrations';

/** A token may carry an expiry (`POST /v1/tokens` `expires_at`); null: it never expires. */
export class Migration0004TokenExpiry extends Migration {
  override name = '0004-token-expiry';

  override up(): void {
    this.addSql(`alter table api_tokens add column expires_at timestamptz;`);
  }
}
