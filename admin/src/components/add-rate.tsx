import { useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { addDays } from '../days.js';
import { amountStep, formatMoney } from '../money.js';
import type { Product, Rate } from '../records.js';
import { Notice } from './notice.js';

/**
 * The New rate form: the first and last local date (both included: the API's `to` is the day
 * after the last), a price (blank: the product's), stay limits and the two closures.
 * `POST /v1/products/{id}/rates`; the API's refusal (an overlap, a price with too many
 * decimals for the currency) is shown as it words it.
 */
export function AddRate(props: { product: Product; onCreated: (rate: Rate) => void; onCancel: () => void }) {
  const { product } = props;
  const [first, setFirst] = useState('');
  const [last, setLast] = useState('');
  const [price, setPrice] = useState('');
  const [minStay, setMinStay] = useState('');
  const [maxStay, setMaxStay] = useState('');
  const [closed, setClosed] = useState(false);
  const [closedToArrival, setClosedToArrival] = useState(false);
  const [error, setError] = useState('');
  const unit = product.price_unit;
  async function create(event: Event) {
    event.preventDefault();
    setError('');
    // Numbers go to the API as typed (JSON numbers); the API checks the decimals against the currency.
    const body = {
      from: first,
      to: last ? addDays(last, 1) : '',
      ...(price.trim() ? { price: Number(price) } : {}),
      ...(minStay ? { min_stay: Number(minStay) } : {}),
      ...(maxStay ? { max_stay: Number(maxStay) } : {}),
      closed,
      closed_to_arrival: closedToArrival,
    };
    try {
      const { body: rate } = await api.call<Rate>('POST', `/v1/products/${encodeURIComponent(product._id)}/rates`, { body });
      props.onCreated(rate);
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  return (
    <form onSubmit={(e) => void create(e)}>
      <Notice kind="error">{error}</Notice>
      <p class="help">Dates are local to the product ({product.time_zone}); the first and the last date are both included.</p>
      <label for="rate-first">First date</label>
      <input id="rate-first" type="date" required value={first} onInput={(e) => setFirst(e.currentTarget.value)} />
      <label for="rate-last">Last date</label>
      <input id="rate-last" type="date" required min={first || undefined} value={last} onInput={(e) => setLast(e.currentTarget.value)} />
      <label for="rate-price">
        Price per {unit} ({product.currency})
      </label>
      <input
        id="rate-price"
        type="number"
        min="0"
        step={amountStep(product.currency)}
        inputMode="decimal"
        aria-describedby="rate-price-help"
        value={price}
        onInput={(e) => setPrice(e.currentTarget.value)}
      />
      <p id="rate-price-help" class="help">
        Leave empty to keep the product's price ({product.price === null ? 'none' : formatMoney(product.price, product.currency)}) on these dates.
      </p>
      <label for="rate-min-stay">Minimum stay ({unit}s)</label>
      <input id="rate-min-stay" type="number" min="1" step="1" value={minStay} onInput={(e) => setMinStay(e.currentTarget.value)} />
      <label for="rate-max-stay">Maximum stay ({unit}s)</label>
      <input id="rate-max-stay" type="number" min="1" step="1" value={maxStay} onInput={(e) => setMaxStay(e.currentTarget.value)} />
      <p class="help">The stay limits count the {unit}s of a stay arriving on these dates; leave them empty for no limit.</p>
      <div class="check">
        <input id="rate-closed" type="checkbox" aria-describedby="rate-closed-help" checked={closed} onChange={(e) => setClosed(e.currentTarget.checked)} />
        <label for="rate-closed">Closed</label>
      </div>
      <p id="rate-closed-help" class="help">
        None of these dates can be sold.
      </p>
      <div class="check">
        <input id="rate-closed-to-arrival" type="checkbox" aria-describedby="rate-arrival-help" checked={closedToArrival} onChange={(e) => setClosedToArrival(e.currentTarget.checked)} />
        <label for="rate-closed-to-arrival">Closed to arrival</label>
      </div>
      <p id="rate-arrival-help" class="help">
        No stay may start on these dates.
      </p>
      <div class="row">
        <button type="submit">Create</button>
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
