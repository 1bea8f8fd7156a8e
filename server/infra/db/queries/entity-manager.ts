/** The ORM's unit of work on a handle, for the query modules that use MikroORM (see database.ts). */
export { entityManagerOf as entityManager } from '../database.ts';
