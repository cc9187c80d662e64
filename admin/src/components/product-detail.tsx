import { useEffect, useRef, useState } from 'preact/hooks';
import type { Product } from '../records.js';
import { ProductBookings } from './product-bookings.js';
import { ProductOccupancy } from './product-occupancy.js';
import { ProductPricing } from './product-pricing.js';

/**
 * The chosen product: its price and rates, occupancy and bookings (`booking` marks one of
 * them, from an order's link). Focus moves to its heading when it opens, so keyboard and
 * screen-reader users land on what they asked for.
 */
export function ProductDetail(props: { product: Product; booking?: string | undefined }) {
  const [version, setVersion] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [props.product._id]);
  return (
    <section class="product-detail" aria-labelledby="product-title">
      <h2 id="product-title" tabIndex={-1} ref={heading}>
        {props.product.name}
      </h2>
      <ProductPricing product={props.product} />
      <ProductOccupancy product={props.product} version={version} />
      <ProductBookings product={props.product} highlight={props.booking} onChanged={() => setVersion((v) => v + 1)} />
    </section>
  );
}
