import pg from 'pg';

/**
 * Dates, timestamps and intervals stay text, for SQL rows and MikroORM alike: a JS Date drops microseconds
 * and keyset cursors would repeat rows. `iso()` turns one into the API's ISO 8601.
 */
export const rowTypes = new pg.TypeOverrides();
const asText = (value: string) => value;
const textArray = pg.types.getTypeParser(1009 as never /* text[] */);
for (const oid of [1082, 1114, 1184, 1186]) rowTypes.setTypeParser(oid, asText);
for (const oid of [1182, 1115, 1185, 1187]) rowTypes.setTypeParser(oid, textArray);
