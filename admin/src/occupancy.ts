import { dayIn, dayLabel } from './days.js';
import type { Availability } from './records.js';

/** One day of a product's occupancy, as the chart and its table show it. */
export interface DayOccupancy {
  /** `YYYY-MM-DD` in the product's time zone. */
  readonly day: string;
  readonly booked: number;
  readonly available: number;
}

/** The availability answer's day slots, named by their day in the product's zone. */
export function occupancyByDay(availability: Availability): DayOccupancy[] {
  return availability.slots.map((slot) => ({ day: dayIn(slot.start, availability.time_zone), booked: slot.booked, available: slot.available }));
}

/** The chart's text alternative: the peak, how many days have bookings, which are full. */
export function describeOccupancy(days: readonly DayOccupancy[], total: number): string {
  if (days.length === 0) return 'No days in range.';
  const peak = days.reduce((best, day) => (day.booked > best.booked ? day : best));
  const busy = days.filter((day) => day.booked > 0).length;
  const full = days.filter((day) => day.booked > 0 && day.available === 0).map((day) => dayLabel(day.day));
  const peakText = peak.booked === 0 ? 'No unit is booked on any day.' : `Peak: ${peak.booked} of ${total} units booked on ${dayLabel(peak.day)}.`;
  const fullText = full.length === 0 ? 'No day is fully booked.' : `Fully booked: ${full.length > 5 ? `${full.length} days` : full.join(', ')}.`;
  return `${peakText} ${busy} of ${days.length} days have bookings. ${fullText}`;
}
