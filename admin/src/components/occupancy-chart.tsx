import { shortDay } from '../days.js';
import type { DayOccupancy } from '../occupancy.js';

const width = 720;
const height = 260;
const margin = { top: 16, right: 12, bottom: 56, left: 52 };
const plotWidth = width - margin.left - margin.right;
const plotHeight = height - margin.top - margin.bottom;

/** Up to five whole-number ticks from 0 to at least `max`. */
function ticks(max: number): number[] {
  const step = Math.max(1, Math.ceil(max / 4));
  const values: number[] = [];
  for (let value = 0; value <= max + step - 1 && values.length < 6; value += step) values.push(value);
  return values;
}

/**
 * Units booked per day against the product's capacity, drawn as SVG (attributes only: the
 * console's CSP allows no inline style). One image with a title and a text summary for
 * assistive technology; the numbers themselves are in the table beside it.
 */
export function OccupancyChart(props: { days: readonly DayOccupancy[]; total: number; title: string; summaryId: string }) {
  const yTicks = ticks(Math.max(props.total, ...props.days.map((d) => d.booked), 1));
  const top = yTicks[yTicks.length - 1] ?? 1;
  const y = (units: number) => margin.top + plotHeight - (units / top) * plotHeight;
  const band = plotWidth / Math.max(1, props.days.length);
  const labelEvery = Math.max(1, Math.ceil(props.days.length / 6));
  return (
    <svg class="chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby="occupancy-chart-title" aria-describedby={props.summaryId}>
      <title id="occupancy-chart-title">{props.title}</title>
      <g class="grid">
        {yTicks.map((tick) => (
          <g key={tick}>
            <line x1={margin.left} x2={width - margin.right} y1={y(tick)} y2={y(tick)} />
            <text x={margin.left - 8} y={y(tick)} dy="0.35em" text-anchor="end">
              {tick}
            </text>
          </g>
        ))}
      </g>
      {props.days.map((day, index) => (
        <rect
          key={day.day}
          class={day.available === 0 && day.booked > 0 ? 'bar full' : 'bar'}
          x={margin.left + index * band + band * 0.15}
          y={y(day.booked)}
          width={band * 0.7}
          height={Math.max(0, margin.top + plotHeight - y(day.booked))}
        >
          <title>{`${day.day}: ${day.booked} of ${props.total} booked`}</title>
        </rect>
      ))}
      <line class="capacity" x1={margin.left} x2={width - margin.right} y1={y(props.total)} y2={y(props.total)} />
      <text class="capacity-label" x={width - margin.right} y={y(props.total) - 6} text-anchor="end">{`Capacity ${props.total}`}</text>
      <g class="axis">
        <line x1={margin.left} x2={width - margin.right} y1={margin.top + plotHeight} y2={margin.top + plotHeight} />
        {props.days.map((day, index) =>
          index % labelEvery === 0 ? (
            <text key={day.day} x={margin.left + index * band + band / 2} y={margin.top + plotHeight + 18} text-anchor="middle">
              {shortDay(day.day)}
            </text>
          ) : null,
        )}
        <text class="axis-title" x={margin.left + plotWidth / 2} y={height - 8} text-anchor="middle">
          Day
        </text>
        <text class="axis-title" transform={`rotate(-90) translate(${-(margin.top + plotHeight / 2)} 16)`} text-anchor="middle">
          Units booked
        </text>
      </g>
    </svg>
  );
}
