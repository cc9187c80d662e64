import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { DataTable } from '../components/data-table.js';
import { Notice } from '../components/notice.js';
import { OrderDetail } from '../components/order-detail.js';
import { dateIn, localTime } from '../days.js';
import { formatMoney } from '../money.js';
import { useNow } from '../now.js';
import type { ListPage, Order, OrderStatus, Product } from '../records.js';
import { href, target } from '../router.js';
import { anyLiveHold, holdText, orderStatuses, orderStatusText, shortId } from '../selling.js';
import { useSignal } from '../signal.js';

const perPage = 25;

/** The products the orders name, read once each (the list carries only `product_id`). */
function useProducts(ids: readonly string[]): ReadonlyMap<string, Product> {
  const [known, setKnown] = useState<ReadonlyMap<string, Product>>(new Map());
  const key = [...new Set(ids)].sort().join(',');
  useEffect(() => {
    const missing = key.split(',').filter((id) => id && !known.has(id));
    if (missing.length === 0) return undefined;
    let live = true;
    void Promise.all(
      missing.map((id) =>
        api.get<Product>(`/v1/products/${encodeURIComponent(id)}`).then(
          ({ body }) => body,
          () => undefined,
        ),
      ),
    ).then((found) => {
      if (!live) return;
      setKnown((before) => new Map([...before, ...found.filter((p) => p !== undefined).map((p) => [p._id, p] as const)]));
    });
    return () => void (live = false);
  }, [key]);
  return known;
}

/**
 * Orders: the tenant's orders, newest first, filtered by status, with each one's total, the
 * time left of a live hold (counting down) and its booking; `#/orders/{id}` opens one with
 * its lines, its booking and the Confirm / Cancel actions its status allows.
 */
export function Orders() {
  const at = useSignal(target);
  const [status, setStatus] = useState<OrderStatus | ''>('');
  const [applied, setApplied] = useState<OrderStatus | ''>('');
  const [page, setPage] = useState(1);
  const [result, setResult] = useState<ListPage<Order>>({ items: [], total: 0 });
  const [loaded, setLoaded] = useState(false);
  const [version, setVersion] = useState(0);
  const [error, setError] = useState('');
  const products = useProducts(result.items.map((order) => order.product_id));
  const now = useNow(anyLiveHold(result.items));

  useEffect(() => {
    const params = new URLSearchParams({ sort: '-created_at', page: String(page), per_page: String(perPage) });
    if (applied) params.set('status', applied);
    api.get<ListPage<Order>>(`/v1/orders?${params}`).then(
      ({ body }) => (setError(''), setResult(body), setLoaded(true)),
      (failure: unknown) => setError(describeError(failure)),
    );
  }, [applied, page, version]);

  const pages = Math.max(1, Math.ceil(result.total / perPage));
  const productName = (id: string) => products.get(id)?.name ?? shortId(id);
  return (
    <>
      <h1>Orders</h1>
      <form class="filters" onSubmit={(e) => (e.preventDefault(), setPage(1), setApplied(status))}>
        <div class="filter">
          <label for="order-status">Status</label>
          <select id="order-status" value={status} onChange={(e) => setStatus(e.currentTarget.value as OrderStatus | '')}>
            <option value="">All statuses</option>
            {orderStatuses.map((value) => (
              <option key={value} value={value}>
                {orderStatusText[value]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Filter</button>
      </form>
      <Notice kind="error">{error}</Notice>
      <p class="help">
        <span role="status">{loaded ? `${result.total} ${applied ? `${orderStatusText[applied].toLowerCase()} ` : ''}order${result.total === 1 ? '' : 's'}, newest first.` : 'Loading orders…'}</span>{' '}
        Choose one to see its lines and booking, and to confirm or cancel it.
      </p>
      <DataTable caption="Orders of this tenant, newest first" headings={['Order', 'Product', 'Stay', 'Status', 'Total', 'Created', 'Hold', 'Booking']}>
        {result.items.map((order) => {
          const product = products.get(order.product_id);
          const zone = product?.time_zone ?? 'UTC';
          const chosen = order._id === at.id;
          return (
            <tr key={order._id} class={chosen ? 'chosen' : ''}>
              <th scope="row" class="nowrap">
                {/* Named in full, the visible text being the id's end alone; an aria-label rather than a hidden span keeps the link one box for pointers. */}
                <a href={href('orders', order._id)} aria-label={`Order ${shortId(order._id)}`} aria-current={chosen ? 'true' : undefined}>
                  <code>{shortId(order._id)}</code>
                </a>
              </th>
              <td>
                <a href={href('products', order.product_id)}>{productName(order.product_id)}</a>
              </td>
              <td class="nowrap">
                {dateIn(order.start_time, zone)} – {dateIn(order.end_time, zone)}
              </td>
              <td>{orderStatusText[order.status] ?? order.status}</td>
              <td class="money">{formatMoney(order.total_amount, order.currency)}</td>
              <td>{localTime(order.created_at)}</td>
              <td class="nowrap">{order.expires_at && order.status === 'active' ? <time dateTime={order.expires_at}>{holdText(order, now)}</time> : holdText(order, now)}</td>
              <td>
                {order.booking_id ? (
                  <a href={href('products', order.product_id, { booking: order.booking_id })} aria-label={`Booking ${shortId(order.booking_id)}`}>
                    <code>{shortId(order.booking_id)}</code>
                  </a>
                ) : (
                  '—'
                )}
              </td>
            </tr>
          );
        })}
      </DataTable>
      {loaded && result.items.length === 0 && <p>No orders{applied ? ` with status ${orderStatusText[applied]}` : ''}.</p>}
      {pages > 1 && (
        <nav class="pager" aria-label="Pages">
          <button type="button" class="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous page
          </button>
          <span>
            Page {page} of {pages}
          </span>
          <button type="button" class="secondary" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next page
          </button>
        </nav>
      )}
      {at.id && <OrderDetail key={at.id} id={at.id} onChanged={() => setVersion((v) => v + 1)} />}
    </>
  );
}
