import { Migration } from '@mikro-orm/migrations';

/**
 * What arrives without a team finds it here: a token's hash (every API call) and its id (an operator's
 * revocation) name their team in `api_token_teams`, a small table shared by all teams (docs/decisions.md,
 * "Sharding by team"). In `api_tokens` the hash is unique with its team, and an invoice's number with its team.
 */
export class Migration0027TokenTeams extends Migration {
  override name = '0027-token-teams';

  override up(): void {
    this.addSql(`
      create table api_token_teams (
        token_hash text primary key,
        token_id text not null unique,
        team_id text not null
      );`);
    this.addSql(
      `insert into api_token_teams (token_hash, token_id, team_id) select token_hash, id, team_id from api_tokens;`,
    );
    this.addSql(
      `alter table api_tokens drop constraint api_tokens_token_hash_key, add constraint api_tokens_token_hash_key unique (token_hash, team_id);`,
    );
    this.addSql(
      `alter table invoices drop constraint invoices_number_key, add constraint invoices_number_key unique (number, team_id);`,
    );
  }
}
