/** The DESIGN pagination envelope: links keep the caller's other query parameters. */
export function pageEnvelope<T>(
  items: T[],
  opts: {
    page: number;
    perPage: number;
    total: number;
    baseUrl: string;
    path: string;
    query?: Record<string, string | string[] | undefined>;
  },
) {
  const lastPage = Math.max(1, Math.ceil(opts.total / opts.perPage));
  const link = (page: number) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.query ?? {})) for (const one of [v ?? []].flat()) params.append(k, one);
    params.set('page', String(page));
    params.set('per_page', String(opts.perPage));
    return `${opts.baseUrl}${opts.path}?${params.toString()}`;
  };
  return {
    data: items,
    links: {
      first: link(1),
      last: link(lastPage),
      prev: opts.page > 1 ? link(Math.min(opts.page - 1, lastPage)) : null,
      next: opts.page < lastPage ? link(opts.page + 1) : null,
    },
    meta: { current_page: opts.page, per_page: opts.perPage, total: opts.total, last_page: lastPage },
  };
}
