import { Migration } from '@mikro-orm/migrations';

/**
 * A post names its form and nothing else: `form_teams` names the form's team, so the public endpoint finds
 * the form on its team's shard (docs/decisions.md, "Sharding by team"). Shared by all teams like
 * `api_token_teams`, filled from existing forms and written with each new one.
 */
export class Migration0028FormTeams extends Migration {
  override name = '0028-form-teams';

  override up(): void {
    this.addSql(`create table form_teams (form_id text primary key, team_id text not null);`);
    this.addSql(`insert into form_teams (form_id, team_id) select id, team_id from forms;`);
  }
}
