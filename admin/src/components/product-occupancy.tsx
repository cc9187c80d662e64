import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { addDays, dayIn, dayLabel } from '../days.js';
import { describeOccupancy, occupancyByDay } from '../occupancy.js';
import type { Availability, Product } from '../records.js';
import { Notice } from './notice.js';
import { OccupancyChart } from './occupancy-chart.js';
import { OccupancyTable } from './occupancy-table.js';

/** How many days ahead the chart shows, today included. */
export const occupancyDays = 30;

/**
 * A product's occupancy over the next 30 days from `GET /v1/products/{id}/availability`
 * (day slots in the product's time zone): the chart, its summary, and the same numbers as
 * a table. `version` changes when a booking changed, to read it again.
 */
export function ProductOccupancy(props: { product: Product; version: number }) {
  const [availability, setAvailability] = useState<Availability>();
  const [error, setError] = useState('');
  useEffect(() => {
    const from = dayIn(new Date(), props.product.time_zone);
    const params = new URLSearchParams({ from, to: addDays(from, occupancyDays), granularity: 'day' });
    setError('');
    api.get<Availability>(`/v1/products/${encodeURIComponent(props.product._id)}/availability?${params}`).then(
      ({ body }) => setAvailability(body),
      (failure: unknown) => setError(describeError(failure)),
    );
  }, [props.product._id, props.product.time_zone, props.version]);
  if (error) return <Notice kind="error">{error}</Notice>;
  if (!availability) return <p role="status">Loading occupancy…</p>;
  const days = occupancyByDay(availability);
  const first = days[0]?.day ?? availability.from;
  const last = days[days.length - 1]?.day ?? availability.to;
  const range = `${dayLabel(first)} to ${dayLabel(last)}`;
  return (
    <section aria-labelledby="occupancy-title">
      <h3 id="occupancy-title">Occupancy</h3>
      <p class="help">
        Units booked per day ({availability.time_zone}), out of {availability.total_items}.
      </p>
      <figure class="chart-figure">
        <OccupancyChart days={days} total={availability.total_items} title={`Units booked per day, ${range}`} summaryId="occupancy-summary" />
        <figcaption id="occupancy-summary">{describeOccupancy(days, availability.total_items)}</figcaption>
      </figure>
      <details>
        <summary>Occupancy as a table</summary>
        <OccupancyTable days={days} total={availability.total_items} caption={`Occupancy of ${props.product.name}, ${range}`} />
      </details>
    </section>
  );
}
