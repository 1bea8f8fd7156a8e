import { Migration } from '@mikro-orm/migrations';

/**
 * A submission's team is its form's team, by constraint: `(form_id, team_id)` references `forms (id, team_id)`
 * in place of the key on `form_id` alone. Every query scopes by `team_id`, so a mismatch would put one
 * tenant's data in another's place. The check locks the same `forms` row as the single-column key.
 */
export class Migration0017SubmissionTeamOfForm extends Migration {
  override name = '0017-submission-team-of-form';

  override up(): void {
    this.addSql(`create unique index if not exists forms_id_team on forms (id, team_id);`);
    // NOT VALID then VALIDATE: the check of existing rows does not block writes while it runs.
    this.addSql(
      `alter table submissions add constraint submissions_form_team_fkey foreign key (form_id, team_id) references forms (id, team_id) on delete cascade not valid;`,
    );
    this.addSql(`alter table submissions validate constraint submissions_form_team_fkey;`);
    this.addSql(`alter table submissions drop constraint if exists submissions_form_id_fkey;`);
  }
}
