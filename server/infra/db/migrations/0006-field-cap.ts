import { Migration } from '@mikro-orm/migrations';

/** FORM_FIELD_LIMIT (server/domain/ingest/limits.ts) as this migration set it: a migration does not change. */
const FORM_FIELD_LIMIT = 500;

/**
 * A form learns at most FORM_FIELD_LIMIT field names: `forms.field_count` counts them and a trigger admits a new
 * name while under the limit (only posts bringing a new name take the form's row lock). A refused name sets
 * `forms.fields_overflow` (the export lists such fields in `_other`). Forms over the limit keep their first 500.
 */
export class Migration0006FieldCap extends Migration {
  override name = '0006-field-cap';

  override up(): void {
    this.addSql(
      `alter table forms add column field_count integer not null default 0, add column fields_overflow boolean not null default false;`,
    );
    this.addSql(`
      with ranked as (
        select form_id, name, row_number() over (partition by form_id order by first_seen_at, ordinal, name) as n from form_fields)
      delete from form_fields f using ranked r
       where f.form_id = r.form_id and f.name = r.name and r.n > ${FORM_FIELD_LIMIT};`);
    this.addSql(`
      update forms f set field_count = c.n, fields_overflow = c.n >= ${FORM_FIELD_LIMIT}
        from (select form_id, count(*)::int as n from form_fields group by form_id) c where c.form_id = f.id;`);
    this.addSql(`
      create function learn_form_field() returns trigger language plpgsql as $$
      declare learned integer;
      begin
        update forms set field_count = field_count + 1
         where id = new.form_id and field_count < ${FORM_FIELD_LIMIT}
        returning field_count into learned;
        if learned is null then
          update forms set fields_overflow = true where id = new.form_id and not fields_overflow;
          return null;
        end if;
        return new;
      end $$;`);
    this.addSql(
      `create trigger form_fields_limit before insert on form_fields for each row execute function learn_form_field();`,
    );
  }
}
