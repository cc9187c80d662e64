import { useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import type { CalendarImport, Product } from '../records.js';
import { Notice } from './notice.js';

/**
 * The New calendar import form: the channel's calendar URL, a name and the units each event
 * blocks. `POST /v1/products/{id}/calendar-imports` answers after the first sync, failed or
 * not (the caller tells which); the API's refusal (an invalid or unreachable address) shows
 * here as it words it.
 */
export function AddImport(props: { product: Product; onCreated: (created: CalendarImport) => void; onCancel: () => void }) {
  const { product } = props;
  const [url, setUrl] = useState('');
  const [name, setName] = useState('');
  const [units, setUnits] = useState('1');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  async function create(event: Event) {
    event.preventDefault();
    if (busy) return;
    setError('');
    setBusy(true);
    try {
      const body = { url: url.trim(), ...(name.trim() ? { name: name.trim() } : {}), units: Number(units) };
      const { body: created } = await api.call<CalendarImport>('POST', `/v1/products/${encodeURIComponent(product._id)}/calendar-imports`, { body });
      props.onCreated(created);
    } catch (failure) {
      setError(describeError(failure));
    }
    setBusy(false);
  }
  return (
    <form onSubmit={(e) => void create(e)}>
      <Notice kind="error">{error}</Notice>
      <label for="import-url">Calendar URL</label>
      <input id="import-url" type="url" required maxLength={2000} aria-describedby="import-url-help" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      <p id="import-url-help" class="help">
        The channel's iCalendar export link (https, ending in <code>.ics</code> as a rule). Each of its events blocks units here; the service fetches it now and then on its own schedule.
      </p>
      <label for="import-name">Name</label>
      <input id="import-name" maxLength={200} aria-describedby="import-name-help" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <p id="import-name-help" class="help">
        What the channel is called (Airbnb, Booking.com); bookings show it. Optional.
      </p>
      <label for="import-units">Units each event blocks</label>
      <input id="import-units" type="number" required min={1} max={Math.min(10_000, product.total_items)} step={1} value={units} onInput={(e) => setUnits(e.currentTarget.value)} />
      {busy && (
        <p class="help" role="status">
          Fetching the calendar…
        </p>
      )}
      <div class="row">
        <button type="submit" aria-disabled={busy ? 'true' : undefined}>
          Create
        </button>
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
