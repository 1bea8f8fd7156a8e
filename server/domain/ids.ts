import { ulid } from 'ulid';

export type IdPrefix = 'team' | 'usr' | 'frm' | 'subm' | 'file' | 'wh' | 'whd' | 'tok' | 'job' | 'sub' | 'inv' | 'evt';

/** Prefixed ULIDs: sortable by creation time, unguessable enough to be path ids. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}
