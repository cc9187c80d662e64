export interface PageInfo {
  readonly total: number;
  readonly page: number;
  readonly perPage: number;
}

/** Total pages; at least 1 so `last` always names a valid page. */
export function totalPages(info: PageInfo): number {
  return Math.max(1, Math.ceil(info.total / info.perPage));
}

/**
 * `X-Total-Count`, `X-Page`, `X-Per-Page`, `X-Total-Pages` and an RFC 8288 `Link` header
 * with first/prev/next/last, keeping the caller's other query parameters.
 */
export function paginationHeaders(info: PageInfo, origin: string, url: string): Record<string, string> {
  const pages = totalPages(info);
  // Only the first `?` starts the query; later ones belong to it (`name__regex=^Lo?`).
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  const search = mark === -1 ? '' : url.slice(mark + 1);
  const linkTo = (page: number): string => {
    const params = new URLSearchParams(search);
    params.set('page', String(page));
    params.set('per_page', String(info.perPage));
    return `<${origin}${path}?${params.toString()}>`;
  };
  const links = [`${linkTo(1)}; rel="first"`];
  if (info.page > 1) links.push(`${linkTo(Math.min(info.page - 1, pages))}; rel="prev"`);
  if (info.page < pages) links.push(`${linkTo(info.page + 1)}; rel="next"`);
  links.push(`${linkTo(pages)}; rel="last"`);
  return {
    'x-total-count': String(info.total),
    'x-page': String(info.page),
    'x-per-page': String(info.perPage),
    'x-total-pages': String(pages),
    link: links.join(', '),
  };
}
