import { dayLabel } from '../days.js';
import type { DayOccupancy } from '../occupancy.js';
import { DataTable } from './data-table.js';

/** The chart's numbers as a data table: one row per day. */
export function OccupancyTable(props: { days: readonly DayOccupancy[]; total: number; caption: string }) {
  return (
    <DataTable caption={props.caption} showCaption headings={['Day', 'Booked', 'Available', 'Capacity']}>
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
    </DataTable>
  );
}
