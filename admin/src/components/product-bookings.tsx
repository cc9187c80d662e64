import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeError, etagOf } from '../api.js';
import { timeIn } from '../days.js';
import { importName } from '../calendars.js';
import type { Booking, CalendarImport, ListPage, Product } from '../records.js';
import { href } from '../router.js';
import { shortId } from '../selling.js';
import { Notice } from './notice.js';
import { DataTable } from './data-table.js';

const statusText: Record<Booking['status'], string> = { active: 'Active', held: 'Held', expired: 'Expired', cancelled: 'Cancelled', completed: 'Completed' };

/** What manages a booking, for its row: a calendar import's block is `Calendar: <import name>`. */
function calendarText(booking: Booking, imports: ReadonlyMap<string, CalendarImport> | undefined): string {
  if (imports === undefined) return 'Calendar';
  const entry = booking.calendar_import_id ? imports.get(booking.calendar_import_id) : undefined;
  return entry ? `Calendar: ${importName(entry)}` : 'Calendar: removed import';
}

/**
 * The product's bookings that have not ended yet, earliest first, with their status; an
 * active one can be cancelled (PATCH with If-Match: the same API and audit trail every
 * client gets), unless it belongs to an order: it then changes only through the order,
 * which its row links to; or unless it is a block of a calendar import (`source:
 * "calendar"`, shown as `Calendar: <import name>` from `imports`): it changes only through
 * the import's feed. `highlight` marks one booking (an order's link) and scrolls to it.
 * `onChanged` tells the page that occupancy changed; `version` changes when bookings changed
 * elsewhere (a calendar sync), to read them again.
 */
export function ProductBookings(props: { product: Product; highlight?: string | undefined; imports?: ReadonlyMap<string, CalendarImport> | undefined; version?: number; onChanged: () => void }) {
  const [page, setPage] = useState<ListPage<Booking>>({ items: [], total: 0 });
  const [error, setError] = useState('');
  const [message, setMessage] = useState('');
  const marked = useRef<HTMLTableRowElement>(null);
  const zone = props.product.time_zone;
  const load = async () => {
    const params = new URLSearchParams({ product_id: props.product._id, end_time__gt: new Date().toISOString(), sort: 'start_time', per_page: '100' });
    try {
      setPage((await api.get<ListPage<Booking>>(`/v1/bookings?${params}`)).body);
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  useEffect(() => {
    setMessage('');
    setError('');
    void load();
  }, [props.product._id]);
  const firstVersion = useRef(props.version);
  useEffect(() => {
    if (props.version !== firstVersion.current) void load();
  }, [props.version]);
  const shown = page.items.some((booking) => booking._id === props.highlight);
  useEffect(() => {
    if (shown) marked.current?.scrollIntoView({ block: 'center' });
  }, [shown, props.highlight]);

  async function cancel(booking: Booking) {
    setError('');
    setMessage('');
    const path = `/v1/bookings/${encodeURIComponent(booking._id)}`;
    try {
      await api.call('PATCH', path, { body: { status: 'cancelled' }, ifMatch: await etagOf(path) });
      setMessage(`Booking ${booking.reference ?? timeIn(booking.start_time, zone)} cancelled.`);
      props.onChanged();
      await load();
    } catch (failure) {
      setError(describeError(failure));
    }
  }

  return (
    <section aria-labelledby="bookings-title">
      <h3 id="bookings-title">Bookings</h3>
      <Notice kind="error">{error}</Notice>
      <Notice kind="success">{message}</Notice>
      <p class="help">
        Bookings that have not ended, earliest first; times in {zone}. A booking of an order changes only through its order, a calendar block only through its calendar.
        {page.total > page.items.length ? ` Showing the first ${page.items.length} of ${page.total}.` : ''}
        {props.highlight && !shown && page.total > 0 ? ` Booking ${shortId(props.highlight)} is not among them (ended, or not of this product).` : ''}
      </p>
      <DataTable caption={`Bookings of ${props.product.name}`} headings={['Start', 'End', 'Units', 'Reference', 'Status', 'Order or calendar', { hidden: 'Actions' }]}>
        {page.items.map((booking) => (
          <tr
            key={booking._id}
            class={booking._id === props.highlight ? 'chosen' : ''}
            aria-current={booking._id === props.highlight ? 'true' : undefined}
            ref={booking._id === props.highlight ? marked : undefined}
          >
            <th scope="row">{timeIn(booking.start_time, zone)}</th>
            <td>{timeIn(booking.end_time, zone)}</td>
            <td>{booking.quantity}</td>
            <td>{booking.reference ?? '—'}</td>
            <td>{statusText[booking.status] ?? booking.status}</td>
            <td>
              {booking.order_id ? (
                <a href={href('orders', booking.order_id)} aria-label={`Order ${shortId(booking.order_id)}`}>
                  <code>{shortId(booking.order_id)}</code>
                </a>
              ) : booking.source === 'calendar' ? (
                calendarText(booking, props.imports)
              ) : (
                '—'
              )}
            </td>
            <td class="actions">
              {booking.status === 'active' && !booking.order_id && booking.source !== 'calendar' && (
                <button type="button" class="danger" onClick={() => void cancel(booking)}>
                  Cancel booking
                </button>
              )}
            </td>
          </tr>
        ))}
      </DataTable>
      {page.items.length === 0 && <p>No upcoming bookings.</p>}
    </section>
  );
}
