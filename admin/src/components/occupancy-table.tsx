import { dayLabel } from '../days.js';
import type { DayOccupancy } from '../occupancy.js';

/** The chart's numbers as a data table: one row per day. */
export function OccupancyTable(props: { days: readonly DayOccupancy[]; total: number; caption: string }) {
  return (
    <div class="table-wrap">
      <table>
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Booked</th>
            <th scope="col">Available</th>
            <th scope="col">Capacity</th>
          </tr>
        </thead>
        <tbody>
          {props.days.map((day) => (
            <tr key={day.day}>
              <th scope="row">
                <time dateTime={day.day}>{dayLabel(day.day)}</time>
              </th>
              <td>{day.booked}</td>
              <td>{day.available}</td>
              <td>{props.total}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
