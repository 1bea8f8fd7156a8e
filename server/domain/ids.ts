import { ulid } from 'ulid';

export type IdPrefix = 'team' | 'usr' | 'frm' | 'subm' | 'file' | 'wh' | 'whd' | 'tok' | 'job' | 'sub' | 'inv' | 'evt' | 'ins';

/** Prefixed ULIDs: sortable by creation time, unguessable enough to be path ids. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}

/** Whether `id` has the shape of an id with this prefix: checked before any query uses it. */
export function isId(prefix: IdPrefix, id: string): boolean {
  return id.length === prefix.length + 27 && id.startsWith(`${prefix}_`) && /^[0-9a-z]{26}$/.test(id.slice(prefix.length + 1));
}
