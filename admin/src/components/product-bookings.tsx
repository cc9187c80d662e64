import { useEffect, useState } from 'preact/hooks';
import { api, describeError, etagOf } from '../api.js';
import { timeIn } from '../days.js';
import type { Booking, ListPage, Product } from '../records.js';
import { Notice } from './notice.js';
import { DataTable } from './data-table.js';

const statusText: Record<Booking['status'], string> = { active: 'Active', cancelled: 'Cancelled', completed: 'Completed' };

/**
 * The product's bookings that have not ended yet, earliest first, with their status; an
 * active one can be cancelled (PATCH with If-Match: the same API and audit trail every
 * client gets). `onChanged` tells the page that occupancy changed.
 */
export function ProductBookings(props: { product: Product; onChanged: () => void }) {
  const [page, setPage] = useState<ListPage<Booking>>({ items: [], total: 0 });
  const [error, setError] = useState('');
  const [message, setMessage] = useState('');
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
        Bookings that have not ended, earliest first; times in {zone}.{page.total > page.items.length ? ` Showing the first ${page.items.length} of ${page.total}.` : ''}
      </p>
      <DataTable caption={`Bookings of ${props.product.name}`} headings={['Start', 'End', 'Units', 'Reference', 'Status', { hidden: 'Actions' }]}>
        {page.items.map((booking) => (
          <tr key={booking._id}>
            <th scope="row">{timeIn(booking.start_time, zone)}</th>
            <td>{timeIn(booking.end_time, zone)}</td>
            <td>{booking.quantity}</td>
            <td>{booking.reference ?? '—'}</td>
            <td>{statusText[booking.status]}</td>
            <td class="actions">
              {booking.status === 'active' && (
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
