import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { Notice } from '../components/notice.js';
import { ProductDetail } from '../components/product-detail.js';
import { ProductList } from '../components/product-list.js';
import type { ListPage, Product } from '../records.js';
import { href, target } from '../router.js';
import { useSignal } from '../signal.js';

/**
 * Products: the tenant's products; the chosen one (`#/products/{id}`) with its price and
 * rates, its occupancy for 30 days, its bookings (`?booking={id}` marks one of them) and its
 * calendars (feed URL and imports).
 */
export function Products() {
  const at = useSignal(target);
  const [page, setPage] = useState<ListPage<Product>>({ items: [], total: 0 });
  /** The chosen product when it is not among the first 100 the list shows (an order's link). */
  const [outside, setOutside] = useState<Product>();
  const [error, setError] = useState('');
  useEffect(() => {
    api.get<ListPage<Product>>('/v1/products?sort=name&per_page=100').then(
      ({ body }) => setPage(body),
      (failure: unknown) => setError(describeError(failure)),
    );
  }, []);
  const listed = at.id === undefined ? undefined : page.items.find((product) => product._id === at.id);
  useEffect(() => {
    setOutside(undefined);
    if (at.id === undefined || listed || page.total === 0) return;
    api.get<Product>(`/v1/products/${encodeURIComponent(at.id)}`).then(
      ({ body }) => setOutside(body),
      (failure: unknown) => setError(describeError(failure)),
    );
  }, [at.id, listed === undefined, page.total]);
  const chosen = listed ?? (outside?._id === at.id ? outside : undefined);
  return (
    <>
      <h1>Products</h1>
      <Notice kind="error">{error}</Notice>
      <p class="help">
        {page.total} product{page.total === 1 ? '' : 's'}
        {page.total > page.items.length ? `, the first ${page.items.length} by name` : ''}. Choose one to see its price, rates, occupancy, bookings and calendars.
      </p>
      <ProductList products={page.items} chosen={chosen?._id} onChoose={(product) => (location.hash = href('products', product._id))} />
      {chosen && <ProductDetail key={chosen._id} product={chosen} booking={at.query.get('booking') ?? undefined} />}
    </>
  );
}
