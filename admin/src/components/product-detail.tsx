import { useEffect, useRef, useState } from 'preact/hooks';
import type { CalendarImport, Product } from '../records.js';
import { ProductBookings } from './product-bookings.js';
import { ProductCalendars } from './product-calendars.js';
import { ProductOccupancy } from './product-occupancy.js';
import { ProductPricing } from './product-pricing.js';

/**
 * The chosen product: its price and rates, occupancy, bookings (`booking` marks one of
 * them, from an order's link) and calendars. Focus moves to its heading when it opens, so
 * keyboard and screen-reader users land on what they asked for. A cancelled booking or a
 * change to the calendar imports (whose events are bookings too) reads occupancy and
 * bookings again.
 */
export function ProductDetail(props: { product: Product; booking?: string | undefined }) {
  const [version, setVersion] = useState(0);
  /** The imports' names by id (bookings name a block's import); undefined until read. */
  const [imports, setImports] = useState<ReadonlyMap<string, CalendarImport>>();
  const heading = useRef<HTMLHeadingElement>(null);
  const importsRead = useRef(false);
  useEffect(() => heading.current?.focus(), [props.product._id]);
  const importsChanged = (items: readonly CalendarImport[]) => {
    // The first read only fills the names; later ones follow a sync, an addition or a removal.
    if (importsRead.current) setVersion((v) => v + 1);
    importsRead.current = true;
    setImports(new Map(items.map((entry) => [entry._id, entry])));
  };
  return (
    <section class="product-detail" aria-labelledby="product-title">
      <h2 id="product-title" tabIndex={-1} ref={heading}>
        {props.product.name}
      </h2>
      <ProductPricing product={props.product} />
      <ProductOccupancy product={props.product} version={version} />
      <ProductBookings product={props.product} highlight={props.booking} imports={imports} version={version} onChanged={() => setVersion((v) => v + 1)} />
      <ProductCalendars product={props.product} onChanged={importsChanged} />
    </section>
  );
}
