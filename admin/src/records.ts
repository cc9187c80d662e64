/** The API records the console's Products, Orders and Users pages read (only the fields they show). */

export interface Product {
  readonly _id: string;
  readonly name: string;
  readonly city: string;
  readonly total_items: number;
  readonly status: 'active' | 'maintenance' | 'retired';
  readonly is_published: boolean;
  /** IANA zone the product's day slots are counted in (docs/availability.md "Time zones"). */
  readonly time_zone: string;
  /** Price of one unit per `price_unit` in `currency` (major units); null: not for sale. */
  readonly price: number | null;
  readonly price_unit: PriceUnit;
  /** ISO 4217 code of the price, the rates and the service charges. */
  readonly currency: string;
}

export type PriceUnit = 'night' | 'day' | 'hour';

/** One rate of `GET /v1/products/{id}/rates`: a price and stay restrictions for local dates `[from, to)`. */
export interface Rate {
  readonly _id: string;
  readonly product_id: string;
  /** First local date, `YYYY-MM-DD`. */
  readonly from: string;
  /** The local date after the last one (exclusive). */
  readonly to: string;
  /** Null: the product's price applies (the restrictions still do). */
  readonly price: number | null;
  readonly min_stay: number | null;
  readonly max_stay: number | null;
  readonly closed: boolean;
  readonly closed_to_arrival: boolean;
}

export type ChargeBasis = 'per_order' | 'per_unit' | 'per_unit_per_period' | 'percent_of_rent';

export interface ServiceCharge {
  readonly _id: string;
  readonly product_id: string;
  readonly name: string | null;
  /** In `currency`; a percent (0–100) of the rent for `percent_of_rent`. */
  readonly amount: number;
  readonly currency: string;
  readonly basis: ChargeBasis;
}

export type OrderStatus = 'active' | 'confirmed' | 'expired' | 'refund_required' | 'cancelled' | 'completed';

/** One priced line of an order: rent for one period, or a service charge. */
export type OrderLine =
  | {
      readonly kind: 'rent';
      readonly start: string;
      readonly end: string;
      /** The local date (product's zone) that priced the period. */
      readonly date: string;
      readonly unit_price: number;
      readonly quantity: number;
      /** The rate that priced the period; null for the product's own price. */
      readonly rate_id: string | null;
      readonly amount: number;
    }
  | {
      readonly kind: 'service_charge';
      readonly service_charge_id: string;
      readonly name: string | null;
      readonly basis: ChargeBasis;
      readonly amount: number;
    };

export interface Order {
  readonly _id: string;
  readonly created_at: string;
  readonly product_id: string;
  readonly start_time: string;
  readonly end_time: string;
  readonly status: OrderStatus;
  /** In `currency`, major units; the sum of `lines`. */
  readonly total_amount: number | null;
  readonly currency: string | null;
  readonly quantity: number | null;
  /** Null for an order of a product without a price (v1). */
  readonly lines: readonly OrderLine[] | null;
  /** Until when an `active` order holds its units unpaid; null once confirmed. */
  readonly expires_at: string | null;
  /** The order's booking (`held`, `active` once paid); null for a v1 order. */
  readonly booking_id: string | null;
  readonly paid_at: string | null;
}

export interface Booking {
  readonly _id: string;
  readonly product_id: string;
  readonly start_time: string;
  readonly end_time: string;
  /** `held` and `expired` belong to bookings of orders. */
  readonly status: 'active' | 'held' | 'expired' | 'cancelled' | 'completed';
  readonly quantity: number;
  readonly reference: string | null;
  /** The order this booking belongs to: it then changes only through the order. */
  readonly order_id: string | null;
  /** Until when a `held` booking holds its units. */
  readonly expires_at: string | null;
  /** `calendar`: a block of a calendar import; it changes only through its feed. */
  readonly source?: 'api' | 'calendar';
  /** The calendar import a block came from. */
  readonly calendar_import_id?: string | null;
}

/** A product's secret iCalendar feed (`GET`/`POST /v1/products/{id}/calendar-feed`). */
export interface CalendarFeed {
  /** The secret URL: the feed's only credential. */
  readonly url: string;
  readonly created_at: string;
}

/** An event of an imported feed that did not fit the free units (not applied). */
export interface CalendarConflict {
  /** The event's UID (plus RECURRENCE-ID for an occurrence). */
  readonly external_uid: string;
  readonly start: string;
  readonly end: string;
  /** Units free throughout the event when it was refused. */
  readonly available: number;
}

/** One of `GET /v1/products/{id}/calendar-imports`: another channel's feed, imported as blocks. */
export interface CalendarImport {
  readonly _id: string;
  readonly product_id: string;
  readonly url: string;
  readonly name: string | null;
  /** Units each event blocks. */
  readonly units: number;
  /** `failing` after a failed sync; `stale` with no success for a while. */
  readonly status: 'ok' | 'failing' | 'stale';
  readonly last_synced_at: string | null;
  readonly last_success_at: string | null;
  /** Why the last sync failed; null after a success. */
  readonly last_error: string | null;
  /** Blocks the feed holds now. */
  readonly events: number;
  /** Malformed events the last sync skipped. */
  readonly skipped: number;
  readonly conflicts: readonly CalendarConflict[] | null;
}

/** One slot of `GET /v1/products/{id}/availability`. */
export interface Slot {
  readonly start: string;
  readonly end: string;
  /** The most units held at any instant of the slot. */
  readonly booked: number;
  readonly available: number;
}

export interface Availability {
  readonly product_id: string;
  readonly total_items: number;
  readonly time_zone: string;
  readonly from: string;
  readonly to: string;
  readonly granularity: 'day' | 'hour';
  readonly slots: readonly Slot[];
}

export type UserRole = 'guest' | 'staff' | 'admin';

export interface User {
  readonly _id: string;
  readonly email: string;
  readonly first_name: string | null;
  readonly last_name: string | null;
  readonly role: UserRole;
  readonly status: 'active' | 'disabled';
  readonly totp_enabled: boolean;
}

/** A page of a list answer. */
export interface ListPage<T> {
  readonly items: readonly T[];
  readonly total: number;
}
