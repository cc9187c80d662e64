import { useEffect, useState } from 'preact/hooks';
import { api, describeError, etagOf } from '../api.js';
import { dateRange } from '../days.js';
import { currencyName, formatMoney } from '../money.js';
import type { ListPage, Product, Rate, ServiceCharge } from '../records.js';
import { basisText, holds, periods, priceText } from '../selling.js';
import { AddRate } from './add-rate.js';
import { DataTable } from './data-table.js';
import { Dialog } from './dialog.js';
import { Notice } from './notice.js';

const unitText = { night: 'Night', day: 'Day', hour: 'Hour' } as const;

/** A service charge's amount: money, or a percent of the rent. */
function chargeAmount(charge: ServiceCharge): string {
  return charge.basis === 'percent_of_rent' ? `${charge.amount} %` : formatMoney(charge.amount, charge.currency);
}

/**
 * A product's selling terms: its price, price unit and currency; its rates (a price and stay
 * restrictions per range of local dates, `GET /v1/products/{id}/rates`), which an
 * administrator holding `products:update` may add and remove; and its service charges.
 */
export function ProductPricing(props: { product: Product }) {
  const { product } = props;
  const [rates, setRates] = useState<ListPage<Rate>>();
  const [charges, setCharges] = useState<ListPage<ServiceCharge>>();
  const [adding, setAdding] = useState(false);
  const [error, setError] = useState('');
  const [message, setMessage] = useState('');
  const ratesPath = `/v1/products/${encodeURIComponent(product._id)}/rates`;
  const editable = holds('products:update');

  async function loadRates() {
    try {
      setRates((await api.get<ListPage<Rate>>(`${ratesPath}?sort=from&per_page=100`)).body);
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  useEffect(() => {
    void loadRates();
    api.get<ListPage<ServiceCharge>>(`/v1/service-charges?${new URLSearchParams({ product_id: product._id, per_page: '100' })}`).then(
      ({ body }) => setCharges(body),
      (failure: unknown) => setError(describeError(failure)),
    );
  }, [product._id]);

  /** `DELETE` with the rate's current ETag; the list is read again afterwards. */
  async function remove(rate: Rate) {
    setError('');
    setMessage('');
    const path = `${ratesPath}/${encodeURIComponent(rate._id)}`;
    try {
      await api.call('DELETE', path, { ifMatch: await etagOf(path) });
      setMessage(`Rate ${dateRange(rate.from, rate.to)} removed.`);
    } catch (failure) {
      setError(describeError(failure));
    }
    await loadRates();
  }

  const stay = (count: number | null) => (count === null ? '—' : periods(count, product.price_unit));
  return (
    <section aria-labelledby="pricing-title">
      <h3 id="pricing-title">Price and rates</h3>
      <dl>
        <div>
          <dt>Price</dt>
          <dd>{product.price === null ? 'None: not for sale (quotes and orders are refused; plain bookings still work)' : priceText(product)}</dd>
        </div>
        <div>
          <dt>Price unit</dt>
          <dd>{unitText[product.price_unit] ?? product.price_unit}</dd>
        </div>
        <div>
          <dt>Currency</dt>
          <dd>
            {product.currency} ({currencyName(product.currency)})
          </dd>
        </div>
      </dl>

      <div class="page-head">
        <h4>Rates</h4>
        {editable && (
          <button type="button" class="secondary" onClick={() => (setMessage(''), setAdding(true))}>
            Add rate
          </button>
        )}
      </div>
      <Notice kind="error">{error}</Notice>
      <Notice kind="success">{message}</Notice>
      <p class="help">
        A rate prices the {product.price_unit}s of its dates ({product.time_zone}, both ends shown included) and restricts stays arriving on them; other dates take the product's price.
      </p>
      <DataTable caption={`Rates of ${product.name}`} headings={['Dates', 'Price', 'Min stay', 'Max stay', 'Closed', 'Closed to arrival', ...(editable ? [{ hidden: 'Actions' }] : [])]}>
        {(rates?.items ?? []).map((rate) => (
          <tr key={rate._id}>
            <th scope="row">{dateRange(rate.from, rate.to)}</th>
            <td class="money">{rate.price === null ? 'Product price' : formatMoney(rate.price, product.currency)}</td>
            <td>{stay(rate.min_stay)}</td>
            <td>{stay(rate.max_stay)}</td>
            <td>{rate.closed ? 'Yes' : 'No'}</td>
            <td>{rate.closed_to_arrival ? 'Yes' : 'No'}</td>
            {editable && (
              <td class="actions">
                <button type="button" class="danger" onClick={() => void remove(rate)}>
                  Remove rate<span class="visually-hidden"> {dateRange(rate.from, rate.to)}</span>
                </button>
              </td>
            )}
          </tr>
        ))}
      </DataTable>
      {rates && rates.items.length === 0 && <p>No rates: the product's price applies on every date.</p>}
      {rates && rates.total > rates.items.length && (
        <p class="help">
          Showing the first {rates.items.length} of {rates.total} rates.
        </p>
      )}

      <h4>Service charges</h4>
      <DataTable caption={`Service charges of ${product.name}`} headings={['Name', 'Basis', 'Amount']}>
        {(charges?.items ?? []).map((charge) => (
          <tr key={charge._id}>
            <th scope="row">{charge.name ?? 'Service charge'}</th>
            <td>{basisText[charge.basis] ?? charge.basis}</td>
            <td class="money">{chargeAmount(charge)}</td>
          </tr>
        ))}
      </DataTable>
      {charges && charges.items.length === 0 && <p>No service charges.</p>}

      <Dialog title="New rate" open={adding} onClose={() => setAdding(false)}>
        <AddRate product={product} onCancel={() => setAdding(false)} onCreated={(rate) => (setAdding(false), setMessage(`Rate ${dateRange(rate.from, rate.to)} added.`), void loadRates())} />
      </Dialog>
    </section>
  );
}
