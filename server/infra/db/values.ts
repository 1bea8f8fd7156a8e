/** Postgres takes at most this many parameters in one statement. */
const MAX_PARAMETERS = 65_535;

/** Binds a value as the statement's next parameter, answering its placeholder (`$n`). */
export type Bind = (value: unknown) => string;

/** A statement's parameters: `fixed` are `$1…`, and `p` adds each further value. */
export function parameters(fixed: readonly unknown[] = []): { values: unknown[]; p: Bind } {
  const values = [...fixed];
  return { values, p: (value) => `$${values.push(value)}` };
}

/**
 * The rows of `insert … values` for `items`, as few statements' worth as Postgres's parameter limit allows:
 * `row` writes one item's tuple, binding its values with `p`; each list's `values` start with `fixed` (`$1…`,
 * which every tuple may use). Nothing for no items.
 */
export function valuesLists<T>(
  items: readonly T[],
  row: (item: T, p: Bind) => string,
  fixed: readonly unknown[] = [],
): Array<{ rows: string; values: unknown[] }> {
  const lists: Array<{ rows: string; values: unknown[] }> = [];
  let params = parameters(fixed);
  let tuples: string[] = [];
  for (const item of items) {
    const bound = params.values.length;
    let tuple = row(item, params.p);
    if (params.values.length > MAX_PARAMETERS && tuples.length) {
      params.values.length = bound;
      lists.push({ rows: tuples.join(', '), values: params.values });
      params = parameters(fixed);
      tuples = [];
      tuple = row(item, params.p);
    }
    tuples.push(tuple);
  }
  if (tuples.length) lists.push({ rows: tuples.join(', '), values: params.values });
  return lists;
}
