import type { Db, Tx } from '../database.ts';

/** What a query function runs on: the process's database, or one transaction. */
export type Handle = Db | Tx;

/** The ORM's unit of work on a handle, for the query modules that use MikroORM (see database.ts). */
export { entityManagerOf as entityManager } from '../database.ts';
