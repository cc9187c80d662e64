import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { Notice } from '../components/notice.js';
import { ProductDetail } from '../components/product-detail.js';
import { ProductList } from '../components/product-list.js';
import type { ListPage, Product } from '../records.js';

/** Products: the tenant's products; the chosen one's occupancy for 30 days and its bookings. */
export function Products() {
  const [page, setPage] = useState<ListPage<Product>>({ items: [], total: 0 });
  const [chosen, setChosen] = useState<Product>();
  const [error, setError] = useState('');
  useEffect(() => {
    api.get<ListPage<Product>>('/v1/products?sort=name&per_page=100').then(
      ({ body }) => setPage(body),
      (failure: unknown) => setError(describeError(failure)),
    );
  }, []);
  return (
    <>
      <h1>Products</h1>
      <Notice kind="error">{error}</Notice>
      <p class="help">
        {page.total} products{page.total > page.items.length ? `, the first ${page.items.length} by name` : ''}. Choose one to see its occupancy and bookings.
      </p>
      <ProductList products={page.items} chosen={chosen?._id} onChoose={setChosen} />
      {chosen && <ProductDetail key={chosen._id} product={chosen} />}
    </>
  );
}
