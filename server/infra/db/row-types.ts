import pg from 'pg';

/**
 * How the pool turns Postgres values into row fields, shared by SQL rows and MikroORM entities: date,
 * timestamp, timestamptz and interval stay text (as MikroORM expects, and so microseconds survive — a JS
 * Date drops them and keyset cursors would repeat rows). Row types declare them `string`; `iso()` turns
 * one into the API's ISO 8601. Everything else keeps pg's defaults (int8 and numeric as text).
 */
export const rowTypes = new pg.TypeOverrides();
const asText = (value: string) => value;
const textArray = pg.types.getTypeParser(1009 as never /* text[] */);
for (const oid of [1082, 1114, 1184, 1186]) rowTypes.setTypeParser(oid, asText);
for (const oid of [1182, 1115, 1185, 1187]) rowTypes.setTypeParser(oid, textArray);

