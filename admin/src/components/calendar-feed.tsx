import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiProblem, api, describeError } from '../api.js';
import { copyText } from '../calendars.js';
import { localTime } from '../days.js';
import type { CalendarFeed, Product } from '../records.js';
import { Dialog } from './dialog.js';

type FeedState = { kind: 'hidden' } | { kind: 'loading' } | { kind: 'none' } | { kind: 'shown'; feed: CalendarFeed };

/**
 * A product's secret export feed (`/v1/products/{id}/calendar-feed`, capability
 * `products:update`): the URL is the feed's credential, so it is read only when asked for
 * (**Show feed URL**) and then shown in a read-only field with **Copy** and **Rotate**
 * (a confirmation first: the old URL stops working at once); **Create feed URL** when the
 * product has none. Results go to the section's live region (`announce`), refusals to `fail`.
 */
export function CalendarFeedUrl(props: { product: Product; announce: (text: string, kind?: 'success' | 'warning') => void; fail: (text: string) => void }) {
  const [state, setState] = useState<FeedState>({ kind: 'hidden' });
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  const path = `/v1/products/${encodeURIComponent(props.product._id)}/calendar-feed`;
  const shownUrl = state.kind === 'shown' ? state.feed.url : undefined;
  const noFeed = state.kind === 'none';
  // The button pressed (Show, Create) is gone once the URL or its absence shows: focus follows.
  const moveFocus = useRef(false);
  const createButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!moveFocus.current) return;
    moveFocus.current = false;
    (shownUrl ? field.current : createButton.current)?.focus();
  }, [shownUrl, noFeed]);

  async function show() {
    props.fail('');
    setState({ kind: 'loading' });
    try {
      const { body } = await api.get<CalendarFeed>(path);
      moveFocus.current = true;
      setState({ kind: 'shown', feed: body });
    } catch (failure) {
      if (failure instanceof ApiProblem && failure.status === 404) {
        moveFocus.current = true;
        setState({ kind: 'none' });
      } else {
        setState({ kind: 'hidden' });
        props.fail(describeError(failure));
      }
    }
  }

  /** `POST`: a new secret; any earlier URL answers 404 from now on. */
  async function rotate(first: boolean) {
    if (busy) return;
    props.fail('');
    props.announce('');
    setBusy(true);
    try {
      const { body } = await api.call<CalendarFeed>('POST', path);
      moveFocus.current = first;
      setState({ kind: 'shown', feed: body });
      setConfirming(false);
      props.announce(
        first ? 'Feed URL created. Give it to each channel that should see when this product is booked.' : 'Feed URL rotated: the old URL no longer works. Give the new one to each channel.',
      );
    } catch (failure) {
      setConfirming(false);
      props.fail(describeError(failure));
    }
    setBusy(false);
  }

  async function copy(url: string) {
    props.announce('');
    const copied = await copyText(url, field.current);
    if (copied) props.announce('Feed URL copied to the clipboard.');
    else props.announce('The browser did not allow copying: the URL is selected in its field, press Ctrl+C (⌘C on a Mac) to copy it.', 'warning');
  }

  return (
    <>
      <h4>Calendar feed</h4>
      <p class="help" id="calendar-feed-help">
        Channels (Airbnb, Booking.com, Google Calendar) read when this product is booked from its secret feed URL: no names or notes, just the busy times. Anyone holding the URL can read it, so give
        it only to the channels.
      </p>
      {state.kind === 'hidden' || state.kind === 'loading' ? (
        <button type="button" class="secondary" aria-disabled={state.kind === 'loading' ? 'true' : undefined} onClick={() => state.kind === 'hidden' && void show()}>
          Show feed URL
        </button>
      ) : state.kind === 'none' ? (
        <>
          <p>This product has no feed URL yet.</p>
          <button type="button" ref={createButton} aria-disabled={busy ? 'true' : undefined} onClick={() => void rotate(true)}>
            Create feed URL
          </button>
        </>
      ) : (
        <>
          <label for="calendar-feed-url">Feed URL</label>
          <input
            id="calendar-feed-url"
            ref={field}
            class="feed-url"
            readOnly
            value={state.feed.url}
            aria-describedby="calendar-feed-help calendar-feed-created"
            onFocus={(e) => e.currentTarget.select()}
          />
          <p class="help" id="calendar-feed-created">
            Created {localTime(state.feed.created_at)}.
          </p>
          <div class="row">
            <button type="button" class="secondary" onClick={() => void copy(state.feed.url)}>
              Copy
            </button>
            <button type="button" class="danger" onClick={() => setConfirming(true)}>
              Rotate
            </button>
          </div>
        </>
      )}
      <Dialog title="Rotate feed URL" open={confirming} onClose={() => setConfirming(false)}>
        <p>A new secret URL replaces the current one. The current URL stops working at once: every channel reading it sees nothing until you give it the new one.</p>
        <div class="row">
          <button type="button" class="danger" aria-disabled={busy ? 'true' : undefined} onClick={() => void rotate(false)}>
            Rotate feed URL
          </button>
          <button type="button" class="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      </Dialog>
    </>
  );
}
