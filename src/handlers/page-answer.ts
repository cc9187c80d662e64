import type { ActionResult } from '../actions/action.js';
import { paginationHeaders } from '../http/pagination.js';

/** The body of one page of a list: its items, the total and where the page stands. */
export interface PageBody {
  readonly items: readonly unknown[];
  readonly total: number;
  readonly page: number;
  readonly per_page: number;
}

/** One page of a list as every paged operation answers it: the page, with its `Link` and total headers. */
export function pageAnswer(page: PageBody, origin: string, url: string): ActionResult {
  return { status: 200, headers: paginationHeaders({ total: page.total, page: page.page, perPage: page.per_page }, origin, url), body: page };
}
