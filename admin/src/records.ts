/** The API records the console's Products and Users pages read (only the fields they show). */

export interface Product {
  readonly _id: string;
  readonly name: string;
  readonly city: string;
  readonly total_items: number;
  readonly status: 'active' | 'maintenance' | 'retired';
  readonly is_published: boolean;
  /** IANA zone the product's day slots are counted in (CONTRACT.md part 3). */
  readonly time_zone: string;
}

export interface Booking {
  readonly _id: string;
  readonly product_id: string;
  readonly start_time: string;
  readonly end_time: string;
  readonly status: 'active' | 'cancelled' | 'completed';
  readonly quantity: number;
  readonly reference: string | null;
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
