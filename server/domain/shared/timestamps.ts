/** A timestamp as rows carry it (text: see server/infra/db/row-types.ts) or as an entity holds it, in the API's ISO 8601 UTC. */
export function iso(value: string | Date): string;
export function iso(value: string | Date | null): string | null;
export function iso(value: string | Date | null): string | null {
  if (value === null) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
