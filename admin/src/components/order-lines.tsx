import { dayLabel, timeIn } from '../days.js';
import { formatMoney } from '../money.js';
import type { Order, OrderLine, PriceUnit } from '../records.js';
import { basisText, shortId } from '../selling.js';
import { DataTable } from './data-table.js';

/** The period a rent line prices: `Night of Sat 2030-06-01`, `Sat 2030-06-01` (a day), `1 Jun 2030, 10:00` (an hour). */
function periodText(line: Extract<OrderLine, { kind: 'rent' }>, unit: PriceUnit | undefined, zone: string): string {
  if (unit === 'hour') return `Hour from ${timeIn(line.start, zone)}`;
  if (unit === 'night') return `Night of ${dayLabel(line.date)}`;
  return dayLabel(line.date);
}

/**
 * An order's priced lines as the API stored them (rent per period, then service charges) and
 * its total: amounts as sent, formatted in the order's currency, never added up here.
 */
export function OrderLines(props: { order: Order; unit: PriceUnit | undefined; zone: string }) {
  const { order } = props;
  const money = (amount: number) => formatMoney(amount, order.currency);
  if (!order.lines) return <p>No priced lines: this order's product had no price (a v1 order, its total as the client sent it).</p>;
  return (
    <DataTable
      caption={`Lines of order ${shortId(order._id)}`}
      headings={['Line', 'Unit price', 'Units', 'Amount']}
      footer={
        <tr>
          <th scope="row" colSpan={3}>
            Total
          </th>
          <td class="money">{formatMoney(order.total_amount, order.currency)}</td>
        </tr>
      }
    >
      {order.lines.map((line, index) =>
        line.kind === 'rent' ? (
          <tr key={index}>
            <th scope="row">
              {periodText(line, props.unit, props.zone)}
              <span class="line-note">Rent, {line.rate_id ? 'rate' : 'product price'}</span>
            </th>
            <td class="money">{money(line.unit_price)}</td>
            <td>{line.quantity}</td>
            <td class="money">{money(line.amount)}</td>
          </tr>
        ) : (
          <tr key={index}>
            <th scope="row">
              {line.name ?? 'Service charge'}
              <span class="line-note">Service charge, {basisText[line.basis]?.toLowerCase() ?? line.basis}</span>
            </th>
            <td>—</td>
            <td>—</td>
            <td class="money">{money(line.amount)}</td>
          </tr>
        ),
      )}
    </DataTable>
  );
}
