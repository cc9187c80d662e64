import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeError, etagOf } from '../api.js';
import { localTime, timeIn } from '../days.js';
import { formatMoney } from '../money.js';
import { useNow } from '../now.js';
import type { Booking, Order, Product } from '../records.js';
import { href } from '../router.js';
import { anyLiveHold, canCancel, canConfirm, holdText, orderStatusText, shortId } from '../selling.js';
import { Notice } from './notice.js';
import { OrderLines } from './order-lines.js';

const bookingStatusText: Record<Booking['status'], string> = { active: 'Active', held: 'Held', expired: 'Expired', cancelled: 'Cancelled', completed: 'Completed' };

/** What to tell the administrator after a confirm or cancel the API accepted. */
function outcome(action: 'confirm' | 'cancel', order: Order): { kind: 'success' | 'info'; text: string } {
  const name = `Order ${shortId(order._id)}`;
  if (action === 'cancel') return { kind: 'success', text: `${name} cancelled: its units are free.` };
  if (order.status === 'refund_required') return { kind: 'info', text: `${name} could not be confirmed: its hold ran out and its units were taken. It now needs a refund.` };
  return { kind: 'success', text: `${name} confirmed.` };
}

/** Why the actions are offered, for the order's status. */
function actionHelp(order: Order, now: number): string {
  const runOut = order.status === 'expired' || (order.status === 'active' && order.expires_at !== null && Date.parse(order.expires_at) <= now);
  if (runOut) return 'The hold has run out: Confirm order succeeds while the units are still free; otherwise the order becomes Refund required. Cancel order frees the units.';
  if (order.status === 'active') return 'Confirm order records a payment taken elsewhere and keeps the units for good. Cancel order frees the units at once.';
  if (order.status === 'confirmed') return 'Cancel order frees the units; the service does not refund the payment.';
  return 'No change is possible from this status.';
}

/**
 * One order (`#/orders/{id}`): its facts, lines and booking, and Confirm order (`POST
 * /v1/orders/{id}/confirm`) and Cancel order (`PATCH` with `{"status":"cancelled"}`), each
 * with `If-Match` read just before and offered only where the status allows it and the
 * session holds the capability. Focus moves to the heading when it opens and after a change.
 */
export function OrderDetail(props: { id: string; onChanged: () => void }) {
  const [order, setOrder] = useState<Order>();
  const [product, setProduct] = useState<Product>();
  const [booking, setBooking] = useState<Booking>();
  const [error, setError] = useState('');
  const [message, setMessage] = useState<{ kind: 'success' | 'info'; text: string }>();
  const [busy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const path = `/v1/orders/${encodeURIComponent(props.id)}`;
  const now = useNow(order ? anyLiveHold([order]) : false);

  async function load(): Promise<void> {
    const { body } = await api.get<Order>(path);
    const [productRead, bookingRead] = await Promise.all([
      api.get<Product>(`/v1/products/${encodeURIComponent(body.product_id)}`).then(
        ({ body: p }) => p,
        () => undefined,
      ),
      body.booking_id
        ? api.get<Booking>(`/v1/bookings/${encodeURIComponent(body.booking_id)}`).then(
            ({ body: b }) => b,
            () => undefined,
          )
        : undefined,
    ]);
    setOrder(body);
    setProduct(productRead);
    setBooking(bookingRead);
  }
  useEffect(() => {
    heading.current?.focus();
    load().catch((failure: unknown) => setError(describeError(failure)));
  }, [props.id]);

  async function change(action: 'confirm' | 'cancel') {
    setError('');
    setMessage(undefined);
    setBusy(true);
    try {
      const ifMatch = await etagOf(path);
      const { body } = action === 'confirm' ? await api.call<Order>('POST', `${path}/confirm`, { ifMatch }) : await api.call<Order>('PATCH', path, { body: { status: 'cancelled' }, ifMatch });
      setMessage(outcome(action, body));
    } catch (failure) {
      setError(describeError(failure));
    }
    // Whatever the answer, show the order as it is now, and the list with it.
    props.onChanged();
    await load().catch((failure: unknown) => setError((shown) => shown || describeError(failure)));
    setBusy(false);
    heading.current?.focus();
  }

  const zone = product?.time_zone ?? 'UTC';
  return (
    <section class="record-detail" aria-labelledby="order-title">
      <h2 id="order-title" tabIndex={-1} ref={heading}>
        Order <code>{shortId(props.id)}</code>
      </h2>
      <Notice kind="error">{error}</Notice>
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      {!order ? (
        !error && <p role="status">Loading order…</p>
      ) : (
        <>
          <dl>
            <div>
              <dt>Order ID</dt>
              <dd>
                <code>{order._id}</code>
              </dd>
            </div>
            <div>
              <dt>Status</dt>
              <dd>{orderStatusText[order.status] ?? order.status}</dd>
            </div>
            <div>
              <dt>Product</dt>
              <dd>
                <a href={href('products', order.product_id)}>{product?.name ?? shortId(order.product_id)}</a>
              </dd>
            </div>
            <div>
              <dt>Stay</dt>
              <dd>
                {timeIn(order.start_time, zone)} – {timeIn(order.end_time, zone)} ({zone})
              </dd>
            </div>
            <div>
              <dt>Units</dt>
              <dd>{order.quantity ?? '—'}</dd>
            </div>
            <div>
              <dt>Total</dt>
              <dd class="money">{formatMoney(order.total_amount, order.currency)}</dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>{localTime(order.created_at)}</dd>
            </div>
            <div>
              <dt>Hold</dt>
              <dd>
                {holdText(order, now)}
                {order.expires_at && ` (until ${localTime(order.expires_at)})`}
              </dd>
            </div>
            <div>
              <dt>Paid</dt>
              <dd>{order.paid_at ? localTime(order.paid_at) : '—'}</dd>
            </div>
          </dl>
          {(canConfirm(order) || canCancel(order)) && (
            <div class="row">
              {canConfirm(order) && (
                <button type="button" disabled={busy} onClick={() => void change('confirm')}>
                  Confirm order
                </button>
              )}
              {canCancel(order) && (
                <button type="button" class="danger" disabled={busy} onClick={() => void change('cancel')}>
                  Cancel order
                </button>
              )}
            </div>
          )}
          <p class="help">{actionHelp(order, now)}</p>

          <h3>Lines</h3>
          <OrderLines order={order} unit={product?.price_unit} zone={zone} />

          <h3>Booking</h3>
          {!order.booking_id ? (
            <p>This order holds no booking (a v1 order of a product without a price).</p>
          ) : !booking ? (
            <p>
              Booking <code>{order.booking_id}</code> could not be read.
            </p>
          ) : (
            <>
              <dl>
                <div>
                  <dt>Booking ID</dt>
                  <dd>
                    <code>{booking._id}</code>
                  </dd>
                </div>
                <div>
                  <dt>Status</dt>
                  <dd>{bookingStatusText[booking.status] ?? booking.status}</dd>
                </div>
                <div>
                  <dt>Units</dt>
                  <dd>{booking.quantity}</dd>
                </div>
                <div>
                  <dt>Start</dt>
                  <dd>{timeIn(booking.start_time, zone)}</dd>
                </div>
                <div>
                  <dt>End</dt>
                  <dd>{timeIn(booking.end_time, zone)}</dd>
                </div>
                {booking.expires_at && (
                  <div>
                    <dt>Held until</dt>
                    <dd>{localTime(booking.expires_at)}</dd>
                  </div>
                )}
              </dl>
              <p>
                <a href={href('products', order.product_id, { booking: booking._id })}>Show the booking on its product's page</a>
              </p>
            </>
          )}
        </>
      )}
    </section>
  );
}
