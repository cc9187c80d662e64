// Generated from the service's OpenAPI document (version 1.0.0) by
// `npm run client:types` (scripts/write-client-types.ts). Do not edit by hand.

import type { ResourceApi } from '../resource-api.js';

/** Version of the API contract these types describe. */
export const apiVersion = "1.0.0";

/** RFC 9457 problem details. `code` is stable and machine-readable; `detail` is safe human text. */
export interface Problem {
  /** Problem type URI, one per `code`. */
  type: string;
  /** Generic title of the problem type. */
  title: string;
  status: number;
  /** What went wrong in this request. */
  detail: string;
  /** The request path. */
  instance: string;
  code: "validation_failed" | "malformed_json" | "malformed_request" | "request_timeout" | "headers_too_large" | "unauthenticated" | "invalid_token" | "insufficient_scope" | "mfa_required" | "invalid_grant" | "daily_limit_reached" | "ip_not_allowed" | "tenant_forbidden" | "field_forbidden" | "not_found" | "method_not_allowed" | "cascade_conflict" | "conflict" | "idempotency_key_in_use" | "idempotency_key_reused" | "event_id_reused" | "legal_hold" | "capacity_exceeded" | "product_unavailable" | "invalid_transition" | "managed_by_order" | "managed_by_calendar" | "not_for_sale" | "stay_restricted" | "rate_overlap" | "currency_mismatch" | "invalid_quote" | "precondition_failed" | "payload_too_large" | "unsupported_media_type" | "precondition_required" | "rate_limited" | "service_unavailable" | "internal_error";
  /** One entry per problem with the request (validation). */
  errors?: Array<{
    field: string;
    message: string;
  }>;
  /** On `cascade_conflict`: the child resources that block the delete. */
  blocking_resources?: string[];
  /** On `legal_hold`: ids of the active legal holds that block the delete, erasure or purge. */
  holds?: string[];
  /** On `capacity_exceeded`: the fewest units free at any instant of the requested interval (not counting the booking itself). */
  available?: number;
  /** On `capacity_exceeded`: ids of the overlapping bookings the caller may read, the first 100 by start time. */
  conflicts?: string[];
  /** On `capacity_exceeded`: true when more bookings overlap than `conflicts` lists. */
  conflicts_truncated?: boolean;
  /** On `invalid_transition`: the statuses the booking may change to from its current one. */
  allowed?: string[];
}

/** A node of the tenant hierarchy below `system`: partner, parent_tenant or tenant. */
export interface TenantsRecord {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id: string | null;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at: string;
  /** Display name. */
  name: string;
  /** Hierarchy level; must be below the parent's. */
  level: "partner" | "parent_tenant" | "tenant";
  /** Parent node; default the caller's node (absent for nodes under system). */
  parent_id?: string | null;
  /** Default ISO 4217 currency of amounts. */
  currency: string;
  /** Operational contact. */
  contact_email?: string | null;
}

/** A node of the tenant hierarchy below `system`: partner, parent_tenant or tenant. In lists, `fields` may select a subset; `_id` is always present. */
export interface TenantsListItem {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id?: string | null;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at?: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at?: string;
  /** Display name. */
  name?: string;
  /** Hierarchy level; must be below the parent's. */
  level?: "partner" | "parent_tenant" | "tenant";
  /** Parent node; default the caller's node (absent for nodes under system). */
  parent_id?: string | null;
  /** Default ISO 4217 currency of amounts. */
  currency?: string;
  /** Operational contact. */
  contact_email?: string | null;
}

/** One page of matching records. */
export interface TenantsList {
  items: TenantsListItem[];
  /** Number of matching records. */
  total: number;
  /** This page, starting at 1. */
  page: number;
  /** Page size. */
  per_page: number;
}

/** Create body of tenants. Server-owned fields are refused (400). */
export interface TenantsCreate {
  /** Display name. */
  name: string;
  /** Hierarchy level; must be below the parent's. */
  level?: "partner" | "parent_tenant" | "tenant";
  /** Parent node; default the caller's node (absent for nodes under system). */
  parent_id?: string | null;
  /** Default ISO 4217 currency of amounts. */
  currency?: string;
  /** Operational contact. */
  contact_email?: string | null;
}

/** Update body of tenants: only the fields to change. Server-owned, create-only and write-only fields are refused (400). */
export interface TenantsUpdate {
  /** Display name. */
  name?: string;
  /** Default ISO 4217 currency of amounts. */
  currency?: string;
  /** Operational contact. */
  contact_email?: string | null;
}

/** A bookable product: a place or item with a number of units. */
export interface ProductsRecord {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at: string;
  /** Display name. */
  name: string;
  /** Long description. */
  description?: string | null;
  /** Street address. */
  address: string;
  /** City. */
  city: string;
  /** Postal code. */
  zip_code: string;
  /** ISO 3166-1 alpha-2 country code. */
  country?: string | null;
  /** Number of bookable units. */
  total_items: number;
  /** Lifecycle state. */
  status: "active" | "maintenance" | "retired";
  /** IANA time zone of the product: its availability days and hours are local to it. An IANA time zone name (Europe/Berlin, America/New_York, UTC). */
  time_zone: string;
  /** Price of one unit per `price_unit`, in `currency` (major units). Null: not for sale (quotes and orders answer 409 `not_for_sale`; plain bookings still work). Rates may override it per date (`/v1/products/{id}/rates`). */
  price?: number | null;
  /** What one `price` buys: a `night`, a `day` or an `hour`, counted in `time_zone` (docs/selling.md). */
  price_unit: "night" | "day" | "hour";
  /** ISO 4217 code of `price` and the product's service charges; defaults to the tenant's currency. */
  currency?: string;
  /** Whether end users (guest role) may book it; the availability search shows them published products only. API clients and staff may book it either way. */
  is_published: boolean;
}

/** A bookable product: a place or item with a number of units. In lists, `fields` may select a subset; `_id` is always present. */
export interface ProductsListItem {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id?: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at?: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at?: string;
  /** Display name. */
  name?: string;
  /** Long description. */
  description?: string | null;
  /** Street address. */
  address?: string;
  /** City. */
  city?: string;
  /** Postal code. */
  zip_code?: string;
  /** ISO 3166-1 alpha-2 country code. */
  country?: string | null;
  /** Number of bookable units. */
  total_items?: number;
  /** Lifecycle state. */
  status?: "active" | "maintenance" | "retired";
  /** IANA time zone of the product: its availability days and hours are local to it. An IANA time zone name (Europe/Berlin, America/New_York, UTC). */
  time_zone?: string;
  /** Price of one unit per `price_unit`, in `currency` (major units). Null: not for sale (quotes and orders answer 409 `not_for_sale`; plain bookings still work). Rates may override it per date (`/v1/products/{id}/rates`). */
  price?: number | null;
  /** What one `price` buys: a `night`, a `day` or an `hour`, counted in `time_zone` (docs/selling.md). */
  price_unit?: "night" | "day" | "hour";
  /** ISO 4217 code of `price` and the product's service charges; defaults to the tenant's currency. */
  currency?: string;
  /** Whether end users (guest role) may book it; the availability search shows them published products only. API clients and staff may book it either way. */
  is_published?: boolean;
}

/** One page of matching records. */
export interface ProductsList {
  items: ProductsListItem[];
  /** Number of matching records. */
  total: number;
  /** This page, starting at 1. */
  page: number;
  /** Page size. */
  per_page: number;
}

/** Create body of products. Server-owned fields are refused (400). */
export interface ProductsCreate {
  /** Display name. */
  name: string;
  /** Long description. */
  description?: string | null;
  /** Street address. */
  address: string;
  /** City. */
  city: string;
  /** Postal code. */
  zip_code: string;
  /** ISO 3166-1 alpha-2 country code. */
  country?: string | null;
  /** Number of bookable units. */
  total_items: number;
  /** Lifecycle state. */
  status?: "active" | "maintenance" | "retired";
  /** IANA time zone of the product: its availability days and hours are local to it. An IANA time zone name (Europe/Berlin, America/New_York, UTC). */
  time_zone?: string;
  /** Price of one unit per `price_unit`, in `currency` (major units). Null: not for sale (quotes and orders answer 409 `not_for_sale`; plain bookings still work). Rates may override it per date (`/v1/products/{id}/rates`). */
  price?: number | null;
  /** What one `price` buys: a `night`, a `day` or an `hour`, counted in `time_zone` (docs/selling.md). */
  price_unit?: "night" | "day" | "hour";
  /** ISO 4217 code of `price` and the product's service charges; defaults to the tenant's currency. */
  currency?: string;
  /** Whether end users (guest role) may book it; the availability search shows them published products only. API clients and staff may book it either way. */
  is_published?: boolean;
}

/** Update body of products: only the fields to change. Server-owned, create-only and write-only fields are refused (400). */
export interface ProductsUpdate {
  /** Display name. */
  name?: string;
  /** Long description. */
  description?: string | null;
  /** Street address. */
  address?: string;
  /** City. */
  city?: string;
  /** Postal code. */
  zip_code?: string;
  /** ISO 3166-1 alpha-2 country code. */
  country?: string | null;
  /** Number of bookable units. */
  total_items?: number;
  /** Lifecycle state. */
  status?: "active" | "maintenance" | "retired";
  /** IANA time zone of the product: its availability days and hours are local to it. An IANA time zone name (Europe/Berlin, America/New_York, UTC). */
  time_zone?: string;
  /** Price of one unit per `price_unit`, in `currency` (major units). Null: not for sale (quotes and orders answer 409 `not_for_sale`; plain bookings still work). Rates may override it per date (`/v1/products/{id}/rates`). */
  price?: number | null;
  /** What one `price` buys: a `night`, a `day` or an `hour`, counted in `time_zone` (docs/selling.md). */
  price_unit?: "night" | "day" | "hour";
  /** ISO 4217 code of `price` and the product's service charges; defaults to the tenant's currency. */
  currency?: string;
  /** Whether end users (guest role) may book it; the availability search shows them published products only. API clients and staff may book it either way. */
  is_published?: boolean;
}

/** An end user (guest, staff) of a tenant. */
export interface UsersRecord {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at: string;
  /** E-mail address (unique per tenant is not enforced). */
  email?: string;
  /** Phone number, E.164. */
  phone?: string | null;
  /** Given name. */
  first_name?: string | null;
  /** Family name. */
  last_name?: string | null;
  /** Birth date (YYYY-MM-DD). */
  date_of_birth?: string | null;
  /** BCP 47 language tag. */
  locale: string;
  /** Role within the tenant. */
  role: "guest" | "staff" | "admin";
  /** Account state. */
  status: "active" | "disabled";
  /** Identifier in the partner's system. */
  external_id?: string | null;
  /** TOTP second factor configured. */
  readonly totp_enabled?: boolean | null;
  /** Time of erasure by depersonalisation, if erased. */
  readonly erased_at?: string | null;
}

/** An end user (guest, staff) of a tenant. In lists, `fields` may select a subset; `_id` is always present. */
export interface UsersListItem {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id?: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at?: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at?: string;
  /** E-mail address (unique per tenant is not enforced). */
  email?: string;
  /** Phone number, E.164. */
  phone?: string | null;
  /** Given name. */
  first_name?: string | null;
  /** Family name. */
  last_name?: string | null;
  /** Birth date (YYYY-MM-DD). */
  date_of_birth?: string | null;
  /** BCP 47 language tag. */
  locale?: string;
  /** Role within the tenant. */
  role?: "guest" | "staff" | "admin";
  /** Account state. */
  status?: "active" | "disabled";
  /** Identifier in the partner's system. */
  external_id?: string | null;
  /** TOTP second factor configured. */
  readonly totp_enabled?: boolean | null;
  /** Time of erasure by depersonalisation, if erased. */
  readonly erased_at?: string | null;
}

/** One page of matching records. */
export interface UsersList {
  items: UsersListItem[];
  /** Number of matching records. */
  total: number;
  /** This page, starting at 1. */
  page: number;
  /** Page size. */
  per_page: number;
}

/** Create body of users. Server-owned fields are refused (400). */
export interface UsersCreate {
  /** E-mail address (unique per tenant is not enforced). */
  email: string;
  /** Phone number, E.164. */
  phone?: string | null;
  /** Given name. */
  first_name?: string | null;
  /** Family name. */
  last_name?: string | null;
  /** Birth date (YYYY-MM-DD). */
  date_of_birth?: string | null;
  /** BCP 47 language tag. */
  locale?: string;
  /** Role within the tenant. */
  role?: "guest" | "staff" | "admin";
  /** Account state. */
  status?: "active" | "disabled";
  /** Identifier in the partner's system. */
  external_id?: string | null;
}

/** Update body of users: only the fields to change. Server-owned, create-only and write-only fields are refused (400). */
export interface UsersUpdate {
  /** E-mail address (unique per tenant is not enforced). */
  email?: string;
  /** Phone number, E.164. */
  phone?: string | null;
  /** Given name. */
  first_name?: string | null;
  /** Family name. */
  last_name?: string | null;
  /** Birth date (YYYY-MM-DD). */
  date_of_birth?: string | null;
  /** BCP 47 language tag. */
  locale?: string;
  /** Role within the tenant. */
  role?: "guest" | "staff" | "admin";
  /** Account state. */
  status?: "active" | "disabled";
  /** Identifier in the partner's system. */
  external_id?: string | null;
}

/** A reservation of a product for a time range. */
export interface BookingsRecord {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at: string;
  /** Booked product. */
  product_id: string;
  /** End user the booking is for. */
  user_id?: string | null;
  /** Start (ISO 8601). */
  start_time: string;
  /** End (ISO 8601), after start_time. */
  end_time: string;
  /** Lifecycle state. `held` and `expired` belong to bookings of orders: a `held` booking holds its units while `expires_at` is in the future. */
  status: "active" | "held" | "expired" | "cancelled" | "completed";
  /** Units booked. */
  quantity: number;
  /** Partner's own reference. */
  reference?: string | null;
  /** The order this booking belongs to; such a booking changes only through its order (409 `managed_by_order`). */
  readonly order_id?: string | null;
  /** Until when a `held` booking holds its units; null once paid. */
  readonly expires_at?: string | null;
  /** Where the booking came from: the API (orders included), or a calendar import (a block; 409 `managed_by_calendar` on any change). */
  readonly source?: "api" | "calendar" | null;
  /** The calendar import a block came from. */
  readonly calendar_import_id?: string | null;
  /** A block's event in its feed: UID, plus RECURRENCE-ID for an occurrence. */
  readonly external_uid?: string | null;
  /** Free-text notes; may mention the guest. */
  notes?: string | null;
}

/** A reservation of a product for a time range. In lists, `fields` may select a subset; `_id` is always present. */
export interface BookingsListItem {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id?: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at?: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at?: string;
  /** Booked product. */
  product_id?: string;
  /** End user the booking is for. */
  user_id?: string | null;
  /** Start (ISO 8601). */
  start_time?: string;
  /** End (ISO 8601), after start_time. */
  end_time?: string;
  /** Lifecycle state. `held` and `expired` belong to bookings of orders: a `held` booking holds its units while `expires_at` is in the future. */
  status?: "active" | "held" | "expired" | "cancelled" | "completed";
  /** Units booked. */
  quantity?: number;
  /** Partner's own reference. */
  reference?: string | null;
  /** The order this booking belongs to; such a booking changes only through its order (409 `managed_by_order`). */
  readonly order_id?: string | null;
  /** Until when a `held` booking holds its units; null once paid. */
  readonly expires_at?: string | null;
  /** Where the booking came from: the API (orders included), or a calendar import (a block; 409 `managed_by_calendar` on any change). */
  readonly source?: "api" | "calendar" | null;
  /** The calendar import a block came from. */
  readonly calendar_import_id?: string | null;
  /** A block's event in its feed: UID, plus RECURRENCE-ID for an occurrence. */
  readonly external_uid?: string | null;
  /** Free-text notes; may mention the guest. */
  notes?: string | null;
}

/** One page of matching records. */
export interface BookingsList {
  items: BookingsListItem[];
  /** Number of matching records. */
  total: number;
  /** This page, starting at 1. */
  page: number;
  /** Page size. */
  per_page: number;
}

/** Create body of bookings. Server-owned fields are refused (400). */
export interface BookingsCreate {
  /** Booked product. */
  product_id: string;
  /** End user the booking is for. */
  user_id?: string | null;
  /** Start (ISO 8601). */
  start_time: string;
  /** End (ISO 8601), after start_time. */
  end_time: string;
  /** Lifecycle state. `held` and `expired` belong to bookings of orders: a `held` booking holds its units while `expires_at` is in the future. */
  status?: "active" | "held" | "expired" | "cancelled" | "completed";
  /** Units booked. */
  quantity?: number;
  /** Partner's own reference. */
  reference?: string | null;
  /** Free-text notes; may mention the guest. */
  notes?: string | null;
}

/** Update body of bookings: only the fields to change. Server-owned, create-only and write-only fields are refused (400). */
export interface BookingsUpdate {
  /** End user the booking is for. */
  user_id?: string | null;
  /** Start (ISO 8601). */
  start_time?: string;
  /** End (ISO 8601), after start_time. */
  end_time?: string;
  /** Lifecycle state. `held` and `expired` belong to bookings of orders: a `held` booking holds its units while `expires_at` is in the future. */
  status?: "active" | "held" | "expired" | "cancelled" | "completed";
  /** Units booked. */
  quantity?: number;
  /** Partner's own reference. */
  reference?: string | null;
  /** Free-text notes; may mention the guest. */
  notes?: string | null;
}

/** A purchase of a product for a time range. */
export interface OrdersRecord {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at: string;
  /** Ordered product (required unless `quote_id` is sent). */
  product_id?: string;
  /** Ordering end user. */
  user_id?: string | null;
  /** Start (ISO 8601; required unless `quote_id` is sent). */
  start_time?: string;
  /** End (ISO 8601), after start_time (required unless `quote_id` is sent). */
  end_time?: string;
  /** Lifecycle state (docs/selling.md): `active` holds units until `expires_at`; a payment makes it `confirmed`; the expiry sweep `expired`; a payment after the units went to someone else `refund_required`. */
  status?: "active" | "confirmed" | "expired" | "refund_required" | "cancelled" | "completed";
  /** Order total in `currency`: set by the service from the price (sent by the caller only for a product without a price). */
  total_amount?: number | null;
  /** ISO 4217 code: the product's for a priced order; else as sent, defaulting to the tenant's currency. */
  currency?: string;
  /** Units ordered (default 1; from the quote with `quote_id`). */
  quantity?: number | null;
  /** The priced lines (rent per period, then service charges), as quoted; `total_amount` is their sum. Null for an order of a product without a price. */
  readonly lines?: Array<{
    kind: "rent" | "service_charge";
    /** Rent: start of the period. */
    start?: string;
    /** Rent: end of the period. */
    end?: string;
    /** Rent: the local date (product's time zone) that prices the period. */
    date?: string;
    /** Rent: price of one unit for the period. */
    unit_price?: number;
    /** Rent: units. */
    quantity?: number;
    /** Rent: the rate that priced the period; null for the product's own price. */
    rate_id?: string | null;
    /** Service charge: the charge. */
    service_charge_id?: string;
    /** Service charge: its name. */
    name?: string | null;
    /** Service charge: how it counts. */
    basis?: "per_order" | "per_unit" | "per_unit_per_period" | "percent_of_rent";
    /** Amount of the line in the currency (major units). */
    amount: number;
  }> | null;
  /** Until when the order holds its units unpaid; null once confirmed. */
  readonly expires_at?: string | null;
  /** The order's `held` booking (`active` once paid). */
  readonly booking_id?: string | null;
  /** When the payment (or a confirm) was accepted. */
  readonly paid_at?: string | null;
}

/** A purchase of a product for a time range. In lists, `fields` may select a subset; `_id` is always present. */
export interface OrdersListItem {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id?: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at?: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at?: string;
  /** Ordered product (required unless `quote_id` is sent). */
  product_id?: string;
  /** Ordering end user. */
  user_id?: string | null;
  /** Start (ISO 8601; required unless `quote_id` is sent). */
  start_time?: string;
  /** End (ISO 8601), after start_time (required unless `quote_id` is sent). */
  end_time?: string;
  /** Lifecycle state (docs/selling.md): `active` holds units until `expires_at`; a payment makes it `confirmed`; the expiry sweep `expired`; a payment after the units went to someone else `refund_required`. */
  status?: "active" | "confirmed" | "expired" | "refund_required" | "cancelled" | "completed";
  /** Order total in `currency`: set by the service from the price (sent by the caller only for a product without a price). */
  total_amount?: number | null;
  /** ISO 4217 code: the product's for a priced order; else as sent, defaulting to the tenant's currency. */
  currency?: string;
  /** Units ordered (default 1; from the quote with `quote_id`). */
  quantity?: number | null;
  /** The priced lines (rent per period, then service charges), as quoted; `total_amount` is their sum. Null for an order of a product without a price. */
  readonly lines?: Array<{
    kind: "rent" | "service_charge";
    /** Rent: start of the period. */
    start?: string;
    /** Rent: end of the period. */
    end?: string;
    /** Rent: the local date (product's time zone) that prices the period. */
    date?: string;
    /** Rent: price of one unit for the period. */
    unit_price?: number;
    /** Rent: units. */
    quantity?: number;
    /** Rent: the rate that priced the period; null for the product's own price. */
    rate_id?: string | null;
    /** Service charge: the charge. */
    service_charge_id?: string;
    /** Service charge: its name. */
    name?: string | null;
    /** Service charge: how it counts. */
    basis?: "per_order" | "per_unit" | "per_unit_per_period" | "percent_of_rent";
    /** Amount of the line in the currency (major units). */
    amount: number;
  }> | null;
  /** Until when the order holds its units unpaid; null once confirmed. */
  readonly expires_at?: string | null;
  /** The order's `held` booking (`active` once paid). */
  readonly booking_id?: string | null;
  /** When the payment (or a confirm) was accepted. */
  readonly paid_at?: string | null;
}

/** One page of matching records. */
export interface OrdersList {
  items: OrdersListItem[];
  /** Number of matching records. */
  total: number;
  /** This page, starting at 1. */
  page: number;
  /** Page size. */
  per_page: number;
}

/** Create body of orders. Server-owned fields are refused (400). */
export interface OrdersCreate {
  /** Ordered product (required unless `quote_id` is sent). */
  product_id?: string;
  /** Ordering end user. */
  user_id?: string | null;
  /** Start (ISO 8601; required unless `quote_id` is sent). */
  start_time?: string;
  /** End (ISO 8601), after start_time (required unless `quote_id` is sent). */
  end_time?: string;
  /** Lifecycle state (docs/selling.md): `active` holds units until `expires_at`; a payment makes it `confirmed`; the expiry sweep `expired`; a payment after the units went to someone else `refund_required`. */
  status?: "active" | "confirmed" | "expired" | "refund_required" | "cancelled" | "completed";
  /** Order total in `currency`: set by the service from the price (sent by the caller only for a product without a price). */
  total_amount?: number | null;
  /** ISO 4217 code: the product's for a priced order; else as sent, defaulting to the tenant's currency. */
  currency?: string;
  /** Units ordered (default 1; from the quote with `quote_id`). */
  quantity?: number | null;
  /** A quote (`POST /v1/quotes`) to order at its lines and total; then leave out `product_id`, the times and `quantity`. */
  quote_id?: string;
  /** How long the order holds its units unpaid (default `ORDER_HOLD_SECONDS`, 900). */
  hold_seconds?: number;
}

/** Update body of orders: only the fields to change. Server-owned, create-only and write-only fields are refused (400). */
export interface OrdersUpdate {
  /** Ordering end user. */
  user_id?: string | null;
  /** Start (ISO 8601; required unless `quote_id` is sent). */
  start_time?: string;
  /** End (ISO 8601), after start_time (required unless `quote_id` is sent). */
  end_time?: string;
  /** Lifecycle state (docs/selling.md): `active` holds units until `expires_at`; a payment makes it `confirmed`; the expiry sweep `expired`; a payment after the units went to someone else `refund_required`. */
  status?: "active" | "confirmed" | "expired" | "refund_required" | "cancelled" | "completed";
  /** Order total in `currency`: set by the service from the price (sent by the caller only for a product without a price). */
  total_amount?: number | null;
  /** ISO 4217 code: the product's for a priced order; else as sent, defaulting to the tenant's currency. */
  currency?: string;
}

/** A fee attached to a product (cleaning, service, tax). */
export interface ServiceChargesRecord {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at: string;
  /** Product the charge applies to. */
  product_id: string;
  /** Label shown on invoices. */
  name?: string | null;
  /** Amount in `currency` (decimal); for `basis` `percent_of_rent`, a percent (0–100) of the rent. */
  amount: number;
  /** ISO 4217 code; defaults to the product's currency and must equal it (409 `currency_mismatch`). */
  currency?: string;
  /** How the charge counts in a price: once per order, per unit, per unit and period, or a percent of the rent (docs/selling.md). */
  basis: "per_order" | "per_unit" | "per_unit_per_period" | "percent_of_rent";
}

/** A fee attached to a product (cleaning, service, tax). In lists, `fields` may select a subset; `_id` is always present. */
export interface ServiceChargesListItem {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id?: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at?: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at?: string;
  /** Product the charge applies to. */
  product_id?: string;
  /** Label shown on invoices. */
  name?: string | null;
  /** Amount in `currency` (decimal); for `basis` `percent_of_rent`, a percent (0–100) of the rent. */
  amount?: number;
  /** ISO 4217 code; defaults to the product's currency and must equal it (409 `currency_mismatch`). */
  currency?: string;
  /** How the charge counts in a price: once per order, per unit, per unit and period, or a percent of the rent (docs/selling.md). */
  basis?: "per_order" | "per_unit" | "per_unit_per_period" | "percent_of_rent";
}

/** One page of matching records. */
export interface ServiceChargesList {
  items: ServiceChargesListItem[];
  /** Number of matching records. */
  total: number;
  /** This page, starting at 1. */
  page: number;
  /** Page size. */
  per_page: number;
}

/** Create body of service-charges. Server-owned fields are refused (400). */
export interface ServiceChargesCreate {
  /** Product the charge applies to. */
  product_id: string;
  /** Label shown on invoices. */
  name?: string | null;
  /** Amount in `currency` (decimal); for `basis` `percent_of_rent`, a percent (0–100) of the rent. */
  amount: number;
  /** ISO 4217 code; defaults to the product's currency and must equal it (409 `currency_mismatch`). */
  currency?: string;
  /** How the charge counts in a price: once per order, per unit, per unit and period, or a percent of the rent (docs/selling.md). */
  basis?: "per_order" | "per_unit" | "per_unit_per_period" | "percent_of_rent";
}

/** Update body of service-charges: only the fields to change. Server-owned, create-only and write-only fields are refused (400). */
export interface ServiceChargesUpdate {
  /** Label shown on invoices. */
  name?: string | null;
  /** Amount in `currency` (decimal); for `basis` `percent_of_rent`, a percent (0–100) of the rent. */
  amount?: number;
  /** ISO 4217 code; defaults to the product's currency and must equal it (409 `currency_mismatch`). */
  currency?: string;
  /** How the charge counts in a price: once per order, per unit, per unit and period, or a percent of the rent (docs/selling.md). */
  basis?: "per_order" | "per_unit" | "per_unit_per_period" | "percent_of_rent";
}

/** A recurring entitlement to a product. */
export interface SubscriptionsRecord {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at: string;
  /** Subscribed product. */
  product_id: string;
  /** Subscribing end user. */
  user_id?: string | null;
  /** Plan name. */
  plan?: string | null;
  /** Lifecycle state. */
  status: "active" | "paused" | "cancelled";
  /** End of validity; absent means open-ended. */
  valid_until?: string | null;
}

/** A recurring entitlement to a product. In lists, `fields` may select a subset; `_id` is always present. */
export interface SubscriptionsListItem {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id?: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at?: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at?: string;
  /** Subscribed product. */
  product_id?: string;
  /** Subscribing end user. */
  user_id?: string | null;
  /** Plan name. */
  plan?: string | null;
  /** Lifecycle state. */
  status?: "active" | "paused" | "cancelled";
  /** End of validity; absent means open-ended. */
  valid_until?: string | null;
}

/** One page of matching records. */
export interface SubscriptionsList {
  items: SubscriptionsListItem[];
  /** Number of matching records. */
  total: number;
  /** This page, starting at 1. */
  page: number;
  /** Page size. */
  per_page: number;
}

/** Create body of subscriptions. Server-owned fields are refused (400). */
export interface SubscriptionsCreate {
  /** Subscribed product. */
  product_id: string;
  /** Subscribing end user. */
  user_id?: string | null;
  /** Plan name. */
  plan?: string | null;
  /** Lifecycle state. */
  status?: "active" | "paused" | "cancelled";
  /** End of validity; absent means open-ended. */
  valid_until?: string | null;
}

/** Update body of subscriptions: only the fields to change. Server-owned, create-only and write-only fields are refused (400). */
export interface SubscriptionsUpdate {
  /** Subscribing end user. */
  user_id?: string | null;
  /** Plan name. */
  plan?: string | null;
  /** Lifecycle state. */
  status?: "active" | "paused" | "cancelled";
  /** End of validity; absent means open-ended. */
  valid_until?: string | null;
}

/** A machine-to-machine client authenticating with private_key_jwt. */
export interface ApiClientsRecord {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id: string | null;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at: string;
  /** OAuth client_id (`iss`/`sub` of assertions); equals `_id`. */
  readonly client_id?: string;
  /** Display name. */
  name: string;
  /** Capabilities assigned (the scopes a token may carry). A capability name, as listed by GET /v1/capabilities. */
  capabilities: string[];
  /** Source networks (CIDR, IPv4/IPv6) allowed to use the client; empty allows any. IPv4 or IPv6 CIDR (a bare address is a single host). */
  ip_allowlist: string[];
  /** A disabled client cannot obtain tokens. */
  disabled: boolean;
  /** Hierarchy level of the client's tenant node. */
  readonly level?: string;
  /** Registered public keys: kid, alg, thumbprint, created_at, active_until. */
  readonly keys?: ClientKey[];
}

/** A machine-to-machine client authenticating with private_key_jwt. In lists, `fields` may select a subset; `_id` is always present. */
export interface ApiClientsListItem {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id?: string | null;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at?: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at?: string;
  /** OAuth client_id (`iss`/`sub` of assertions); equals `_id`. */
  readonly client_id?: string;
  /** Display name. */
  name?: string;
  /** Capabilities assigned (the scopes a token may carry). A capability name, as listed by GET /v1/capabilities. */
  capabilities?: string[];
  /** Source networks (CIDR, IPv4/IPv6) allowed to use the client; empty allows any. IPv4 or IPv6 CIDR (a bare address is a single host). */
  ip_allowlist?: string[];
  /** A disabled client cannot obtain tokens. */
  disabled?: boolean;
  /** Hierarchy level of the client's tenant node. */
  readonly level?: string;
  /** Registered public keys: kid, alg, thumbprint, created_at, active_until. */
  readonly keys?: ClientKey[];
}

/** One page of matching records. */
export interface ApiClientsList {
  items: ApiClientsListItem[];
  /** Number of matching records. */
  total: number;
  /** This page, starting at 1. */
  page: number;
  /** Page size. */
  per_page: number;
}

/** Create body of api-clients. Server-owned fields are refused (400). */
export interface ApiClientsCreate {
  /** Display name. */
  name: string;
  /** Capabilities assigned (the scopes a token may carry). A capability name, as listed by GET /v1/capabilities. */
  capabilities: string[];
  /** Source networks (CIDR, IPv4/IPv6) allowed to use the client; empty allows any. IPv4 or IPv6 CIDR (a bare address is a single host). */
  ip_allowlist?: string[];
  /** A disabled client cannot obtain tokens. */
  disabled?: boolean;
  /** First public key (SPKI PEM, EC P-256/P-384/P-521). Create only. A PEM document (SPKI public key). */
  public_key: string;
  /** Key id of the first key; default RFC 7638 thumbprint. Create only. */
  kid?: string;
}

/** Update body of api-clients: only the fields to change. Server-owned, create-only and write-only fields are refused (400). */
export interface ApiClientsUpdate {
  /** Display name. */
  name?: string;
  /** Capabilities assigned (the scopes a token may carry). A capability name, as listed by GET /v1/capabilities. */
  capabilities?: string[];
  /** Source networks (CIDR, IPv4/IPv6) allowed to use the client; empty allows any. IPv4 or IPv6 CIDR (a bare address is a single host). */
  ip_allowlist?: string[];
  /** A disabled client cannot obtain tokens. */
  disabled?: boolean;
}

/** A webhook: outgoing (the service posts its events to `url`) or incoming (a sender such as Stripe posts to `/v1/webhooks/{id}/receive`). */
export interface WebhooksRecord {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at: string;
  /** `outgoing`: the service sends events to `url`; `incoming`: a sender posts to `/v1/webhooks/{id}/receive`. */
  direction: "outgoing" | "incoming";
  /** Outgoing: the HTTPS endpoint that receives events (required). */
  url?: string | null;
  /** Outgoing: event names delivered to the endpoint (required). */
  events: string[];
  /** Incoming: how the sender signs (required for incoming). */
  scheme?: "standard-webhooks" | "stripe" | null;
  /** Incoming: source networks (CIDR) allowed to post; empty allows any. IPv4 or IPv6 CIDR (a bare address is a single host). */
  ip_allowlist: string[];
  /** Free text. */
  description?: string | null;
  /** Deliveries are paused when false. */
  active: boolean;
}

/** A webhook: outgoing (the service posts its events to `url`) or incoming (a sender such as Stripe posts to `/v1/webhooks/{id}/receive`). In lists, `fields` may select a subset; `_id` is always present. */
export interface WebhooksListItem {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id?: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at?: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at?: string;
  /** `outgoing`: the service sends events to `url`; `incoming`: a sender posts to `/v1/webhooks/{id}/receive`. */
  direction?: "outgoing" | "incoming";
  /** Outgoing: the HTTPS endpoint that receives events (required). */
  url?: string | null;
  /** Outgoing: event names delivered to the endpoint (required). */
  events?: string[];
  /** Incoming: how the sender signs (required for incoming). */
  scheme?: "standard-webhooks" | "stripe" | null;
  /** Incoming: source networks (CIDR) allowed to post; empty allows any. IPv4 or IPv6 CIDR (a bare address is a single host). */
  ip_allowlist?: string[];
  /** Free text. */
  description?: string | null;
  /** Deliveries are paused when false. */
  active?: boolean;
}

/** One page of matching records. */
export interface WebhooksList {
  items: WebhooksListItem[];
  /** Number of matching records. */
  total: number;
  /** This page, starting at 1. */
  page: number;
  /** Page size. */
  per_page: number;
}

/** Create body of webhooks. Server-owned fields are refused (400). */
export interface WebhooksCreate {
  /** `outgoing`: the service sends events to `url`; `incoming`: a sender posts to `/v1/webhooks/{id}/receive`. */
  direction?: "outgoing" | "incoming";
  /** Outgoing: the HTTPS endpoint that receives events (required). */
  url?: string | null;
  /** Outgoing: event names delivered to the endpoint (required). */
  events?: string[];
  /** Incoming: how the sender signs (required for incoming). */
  scheme?: "standard-webhooks" | "stripe" | null;
  /** Incoming: source networks (CIDR) allowed to post; empty allows any. IPv4 or IPv6 CIDR (a bare address is a single host). */
  ip_allowlist?: string[];
  /** Incoming `stripe`: the endpoint secret Stripe shows (`whsec_…`). Never readable afterwards. */
  secret?: string;
  /** Free text. */
  description?: string | null;
  /** Deliveries are paused when false. */
  active?: boolean;
}

/** Update body of webhooks: only the fields to change. Server-owned, create-only and write-only fields are refused (400). */
export interface WebhooksUpdate {
  /** Outgoing: the HTTPS endpoint that receives events (required). */
  url?: string | null;
  /** Outgoing: event names delivered to the endpoint (required). */
  events?: string[];
  /** Incoming: source networks (CIDR) allowed to post; empty allows any. IPv4 or IPv6 CIDR (a bare address is a single host). */
  ip_allowlist?: string[];
  /** Free text. */
  description?: string | null;
  /** Deliveries are paused when false. */
  active?: boolean;
}

/** A user's consent decision for one processing purpose. Append-only evidence: a withdrawal is a new record with `granted: false`; the newest record per purpose is the current decision. */
export interface ConsentsRecord {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at: string;
  /** User who decided. */
  user_id: string;
  /** Processing purpose (e.g. marketing_email). */
  purpose: string;
  /** Consent given (true) or withdrawn (false). */
  granted: boolean;
  /** Where the decision was captured (form, channel, address); nulled by erasure. */
  source?: string | null;
  /** Version of the privacy policy or consent text the user saw. */
  policy_version?: string | null;
  /** When the consent lapses. */
  expires_at?: string | null;
}

/** A user's consent decision for one processing purpose. Append-only evidence: a withdrawal is a new record with `granted: false`; the newest record per purpose is the current decision. In lists, `fields` may select a subset; `_id` is always present. */
export interface ConsentsListItem {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id?: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at?: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at?: string;
  /** User who decided. */
  user_id?: string;
  /** Processing purpose (e.g. marketing_email). */
  purpose?: string;
  /** Consent given (true) or withdrawn (false). */
  granted?: boolean;
  /** Where the decision was captured (form, channel, address); nulled by erasure. */
  source?: string | null;
  /** Version of the privacy policy or consent text the user saw. */
  policy_version?: string | null;
  /** When the consent lapses. */
  expires_at?: string | null;
}

/** One page of matching records. */
export interface ConsentsList {
  items: ConsentsListItem[];
  /** Number of matching records. */
  total: number;
  /** This page, starting at 1. */
  page: number;
  /** Page size. */
  per_page: number;
}

/** Create body of consents. Server-owned fields are refused (400). */
export interface ConsentsCreate {
  /** User who decided. */
  user_id: string;
  /** Processing purpose (e.g. marketing_email). */
  purpose: string;
  /** Consent given (true) or withdrawn (false). */
  granted: boolean;
  /** Where the decision was captured (form, channel, address); nulled by erasure. */
  source?: string | null;
  /** Version of the privacy policy or consent text the user saw. */
  policy_version?: string | null;
  /** When the consent lapses. */
  expires_at?: string | null;
}

/** Suspends erasure and retention purges of one record. */
export interface LegalHoldsRecord {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at: string;
  /** Resource name of the held record. */
  resource: string;
  /** Held record. */
  record_id: string;
  /** Legal basis (case number, authority). */
  reason: string;
  /** Hold ends automatically at this time; absent means until released. */
  expires_at?: string | null;
}

/** Suspends erasure and retention purges of one record. In lists, `fields` may select a subset; `_id` is always present. */
export interface LegalHoldsListItem {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id?: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at?: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at?: string;
  /** Resource name of the held record. */
  resource?: string;
  /** Held record. */
  record_id?: string;
  /** Legal basis (case number, authority). */
  reason?: string;
  /** Hold ends automatically at this time; absent means until released. */
  expires_at?: string | null;
}

/** One page of matching records. */
export interface LegalHoldsList {
  items: LegalHoldsListItem[];
  /** Number of matching records. */
  total: number;
  /** This page, starting at 1. */
  page: number;
  /** Page size. */
  per_page: number;
}

/** Create body of legal-holds. Server-owned fields are refused (400). */
export interface LegalHoldsCreate {
  /** Resource name of the held record. */
  resource: string;
  /** Held record. */
  record_id: string;
  /** Legal basis (case number, authority). */
  reason: string;
  /** Hold ends automatically at this time; absent means until released. */
  expires_at?: string | null;
}

/** Update body of legal-holds: only the fields to change. Server-owned, create-only and write-only fields are refused (400). */
export interface LegalHoldsUpdate {
  /** Legal basis (case number, authority). */
  reason?: string;
  /** Hold ends automatically at this time; absent means until released. */
  expires_at?: string | null;
}

/** How long records of a category are kept before purge or anonymisation. */
export interface RetentionPoliciesRecord {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at: string;
  /** Data category (an audit category or a resource name). */
  category: string;
  /** Days to keep. */
  retention_days: number;
  /** What happens after expiry. */
  action: "delete" | "anonymize";
}

/** How long records of a category are kept before purge or anonymisation. In lists, `fields` may select a subset; `_id` is always present. */
export interface RetentionPoliciesListItem {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id?: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at?: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at?: string;
  /** Data category (an audit category or a resource name). */
  category?: string;
  /** Days to keep. */
  retention_days?: number;
  /** What happens after expiry. */
  action?: "delete" | "anonymize";
}

/** One page of matching records. */
export interface RetentionPoliciesList {
  items: RetentionPoliciesListItem[];
  /** Number of matching records. */
  total: number;
  /** This page, starting at 1. */
  page: number;
  /** Page size. */
  per_page: number;
}

/** Create body of retention-policies. Server-owned fields are refused (400). */
export interface RetentionPoliciesCreate {
  /** Data category (an audit category or a resource name). */
  category: string;
  /** Days to keep. */
  retention_days: number;
  /** What happens after expiry. */
  action?: "delete" | "anonymize";
}

/** Update body of retention-policies: only the fields to change. Server-owned, create-only and write-only fields are refused (400). */
export interface RetentionPoliciesUpdate {
  /** Data category (an audit category or a resource name). */
  category?: string;
  /** Days to keep. */
  retention_days?: number;
  /** What happens after expiry. */
  action?: "delete" | "anonymize";
}

/** Append-only trail of every change and security event. */
export interface AuditLogsRecord {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id: string | null;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at: string;
  /** Retention category: `data` for changes, `security` for security events. */
  readonly category?: string;
  /** Kind of actor. */
  readonly actor_type?: "client" | "user" | "system" | "webhook";
  /** Client or user id, or `system`. */
  readonly actor_id?: string;
  /** Source address of the request. */
  readonly client_ip?: string | null;
  /** Request id (also in logs). */
  readonly request_id?: string | null;
  /** `create`, `update`, `delete` or a sub-operation / security event name. */
  readonly action?: string;
  /** Resource name. */
  readonly resource?: string;
  /** Affected record. */
  readonly record_id?: string | null;
  /** Changed fields before (full snapshot on delete). Sensitive fields of the audited resource are shown only to readers holding their read capability. */
  readonly old_values?: Record<string, unknown> | null;
  /** Changed fields after. Sensitive fields of the audited resource are shown only to readers holding their read capability. */
  readonly new_values?: Record<string, unknown> | null;
}

/** Append-only trail of every change and security event. In lists, `fields` may select a subset; `_id` is always present. */
export interface AuditLogsListItem {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id?: string | null;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at?: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at?: string;
  /** Retention category: `data` for changes, `security` for security events. */
  readonly category?: string;
  /** Kind of actor. */
  readonly actor_type?: "client" | "user" | "system" | "webhook";
  /** Client or user id, or `system`. */
  readonly actor_id?: string;
  /** Source address of the request. */
  readonly client_ip?: string | null;
  /** Request id (also in logs). */
  readonly request_id?: string | null;
  /** `create`, `update`, `delete` or a sub-operation / security event name. */
  readonly action?: string;
  /** Resource name. */
  readonly resource?: string;
  /** Affected record. */
  readonly record_id?: string | null;
  /** Changed fields before (full snapshot on delete). Sensitive fields of the audited resource are shown only to readers holding their read capability. */
  readonly old_values?: Record<string, unknown> | null;
  /** Changed fields after. Sensitive fields of the audited resource are shown only to readers holding their read capability. */
  readonly new_values?: Record<string, unknown> | null;
}

/** One page of matching records. */
export interface AuditLogsList {
  items: AuditLogsListItem[];
  /** Number of matching records. */
  total: number;
  /** This page, starting at 1. */
  page: number;
  /** Page size. */
  per_page: number;
}

export interface TokenRequest {
  grant_type: unknown;
  client_id: string;
  client_assertion_type: unknown;
  /** Signed JWT (ES256/ES384/ES512): `iss` = `sub` = client_id, `aud` = `http://localhost:3000/v1/auth/token`, unique `jti`, `iat`, `exp` at most 300 s after `iat`. */
  client_assertion: string;
  /** Space-separated capabilities; omitted grants every assigned capability. */
  scope?: string;
}

export interface TokenResponse {
  /** ES512 JWT (RFC 9068). */
  access_token: string;
  token_type: "Bearer" | "DPoP";
  /** Seconds; default 900. */
  expires_in: number;
  /** Granted capabilities, space-separated. */
  scope: string;
}

/** RFC 6749 §5.2 error. `invalid_request` 400: malformed or content-encoded form body, a missing or repeated field, an Authorization header; `invalid_client` 401: client authentication failed (unknown client or key, bad assertion, replayed jti, source address); `invalid_grant` 400: the grant is invalid; `unsupported_grant_type` 400: grant_type other than client_credentials; `invalid_scope` 400: unknown scope, or nothing requested is assigned; `invalid_dpop_proof` 400: bad DPoP proof; `use_dpop_nonce` 400: the DPoP proof lacks the current server nonce (see DPoP-Nonce); `rate_limited` 429: too many token requests; retry after Retry-After seconds; `temporarily_unavailable` 503: the database is busy or unreachable; retry after Retry-After seconds; `server_error` 500: unexpected failure. */
export interface OAuthError {
  error: "invalid_request" | "invalid_client" | "invalid_grant" | "unsupported_grant_type" | "invalid_scope" | "invalid_dpop_proof" | "use_dpop_nonce" | "rate_limited" | "temporarily_unavailable" | "server_error";
  error_description: string;
}

export interface ClientKey {
  kid: string;
  alg: "ES256" | "ES384" | "ES512";
  /** RFC 7638 JWK thumbprint. */
  thumbprint: string;
  created_at: string;
  /** End of validity after a rotation; null while current. */
  active_until: string | null;
}

export interface AddClientKeyResult {
  client_id: string;
  kid: string;
  key: ClientKey;
  retired: Array<{
    kid: string;
    active_until: string;
  }>;
}

export interface AddClientKey {
  /** SPKI PEM, EC P-256/P-384/P-521. */
  public_key: string;
  /** Printable ASCII without spaces. Default: the RFC 7638 thumbprint. */
  kid?: string;
  /** Days earlier keys stay valid; default `KEY_OVERLAP_DAYS` (30 unless configured). */
  overlap_days?: number;
}

/** draft-inadarei-api-health-check response. */
export interface Health {
  status: "pass" | "fail";
  checks?: Record<string, unknown>;
}

export interface CapabilityList {
  items: Array<{
    name: string;
    resource: string;
    description: string;
  }>;
  total: number;
  /** The end-user roles (`users.role`): the capabilities of their tokens, and which records they reach (`own`: only records naming the user; `tenant`: the whole tenant). */
  roles: Array<{
    name: "guest" | "staff" | "admin";
    reach: "own" | "tenant";
    capabilities: string[];
  }>;
}

/** RFC 7517 JWK set of the access-token verification keys (ES512). */
export interface Jwks {
  keys: Array<{
    kid?: string;
    kty: string;
    alg?: string;
  }>;
}

/** Pre-filled answers of a vendor security questionnaire, drawn from the running deployment's posture. */
export type SecurityQuestionnaire = Array<{
  id: string;
  question: string;
  answer: string;
  /** Where a reviewer can verify the answer: posture members and documentation. */
  evidence: string;
}>;

/** RFC 8414 metadata of the issuer `{PUBLIC_URL}/v1`. */
export interface AuthorizationServerMetadata {
  issuer: string;
  token_endpoint: string;
  jwks_uri: string;
  scopes_supported?: string[];
}

/** Types of `api-clients` for the resource client. */
export interface ApiClientsTypes {
  readonly record: ApiClientsRecord;
  readonly create: ApiClientsCreate;
  readonly update: ApiClientsUpdate;
  /** Names `fields` may select. */
  readonly field: "_id" | "tenant_id" | "created_at" | "updated_at" | "client_id" | "name" | "capabilities" | "ip_allowlist" | "disabled" | "level" | "keys";
  /** Keys `sort` accepts (`-` for descending). */
  readonly sortKey: "_id" | "-_id" | "tenant_id" | "-tenant_id" | "created_at" | "-created_at" | "updated_at" | "-updated_at" | "name" | "-name";
  /** Fields `where` may filter on, with the type of their values. */
  readonly filter: {
    readonly _id: string;
    readonly tenant_id: string;
    readonly created_at: string | Date;
    readonly updated_at: string | Date;
    readonly client_id: string;
    readonly name: string;
    readonly disabled: boolean;
    readonly level: string;
  };
}

/** Types of `audit-logs` for the resource client. */
export interface AuditLogsTypes {
  readonly record: AuditLogsRecord;
  readonly create: never;
  readonly update: never;
  /** Names `fields` may select. */
  readonly field: "_id" | "tenant_id" | "created_at" | "updated_at" | "category" | "actor_type" | "actor_id" | "client_ip" | "request_id" | "action" | "resource" | "record_id" | "old_values" | "new_values";
  /** Keys `sort` accepts (`-` for descending). */
  readonly sortKey: "_id" | "-_id" | "tenant_id" | "-tenant_id" | "created_at" | "-created_at" | "updated_at" | "-updated_at" | "category" | "-category" | "actor_type" | "-actor_type" | "actor_id" | "-actor_id" | "action" | "-action" | "resource" | "-resource";
  /** Fields `where` may filter on, with the type of their values. */
  readonly filter: {
    readonly _id: string;
    readonly tenant_id: string;
    readonly created_at: string | Date;
    readonly updated_at: string | Date;
    readonly category: string;
    readonly actor_type: string;
    readonly actor_id: string;
    readonly client_ip: string;
    readonly request_id: string;
    readonly action: string;
    readonly resource: string;
    readonly record_id: string;
  };
}

/** Types of `bookings` for the resource client. */
export interface BookingsTypes {
  readonly record: BookingsRecord;
  readonly create: BookingsCreate;
  readonly update: BookingsUpdate;
  /** Names `fields` may select. */
  readonly field: "_id" | "tenant_id" | "created_at" | "updated_at" | "product_id" | "user_id" | "start_time" | "end_time" | "status" | "quantity" | "reference" | "order_id" | "expires_at" | "source" | "calendar_import_id" | "external_uid" | "notes";
  /** Keys `sort` accepts (`-` for descending). */
  readonly sortKey: "_id" | "-_id" | "tenant_id" | "-tenant_id" | "created_at" | "-created_at" | "updated_at" | "-updated_at" | "product_id" | "-product_id" | "start_time" | "-start_time" | "end_time" | "-end_time" | "status" | "-status" | "quantity" | "-quantity" | "expires_at" | "-expires_at";
  /** Fields `where` may filter on, with the type of their values. */
  readonly filter: {
    readonly _id: string;
    readonly tenant_id: string;
    readonly created_at: string | Date;
    readonly updated_at: string | Date;
    readonly product_id: string;
    readonly user_id: string;
    readonly start_time: string | Date;
    readonly end_time: string | Date;
    readonly status: string;
    readonly quantity: number;
    readonly reference: string;
    readonly order_id: string;
    readonly expires_at: string | Date;
    readonly source: string;
    readonly calendar_import_id: string;
    readonly external_uid: string;
  };
}

/** Types of `consents` for the resource client. */
export interface ConsentsTypes {
  readonly record: ConsentsRecord;
  readonly create: ConsentsCreate;
  readonly update: never;
  /** Names `fields` may select. */
  readonly field: "_id" | "tenant_id" | "created_at" | "updated_at" | "user_id" | "purpose" | "granted" | "source" | "policy_version" | "expires_at";
  /** Keys `sort` accepts (`-` for descending). */
  readonly sortKey: "_id" | "-_id" | "tenant_id" | "-tenant_id" | "created_at" | "-created_at" | "updated_at" | "-updated_at" | "purpose" | "-purpose" | "expires_at" | "-expires_at";
  /** Fields `where` may filter on, with the type of their values. */
  readonly filter: {
    readonly _id: string;
    readonly tenant_id: string;
    readonly created_at: string | Date;
    readonly updated_at: string | Date;
    readonly user_id: string;
    readonly purpose: string;
    readonly granted: boolean;
    readonly policy_version: string;
    readonly expires_at: string | Date;
  };
}

/** Types of `legal-holds` for the resource client. */
export interface LegalHoldsTypes {
  readonly record: LegalHoldsRecord;
  readonly create: LegalHoldsCreate;
  readonly update: LegalHoldsUpdate;
  /** Names `fields` may select. */
  readonly field: "_id" | "tenant_id" | "created_at" | "updated_at" | "resource" | "record_id" | "reason" | "expires_at";
  /** Keys `sort` accepts (`-` for descending). */
  readonly sortKey: "_id" | "-_id" | "tenant_id" | "-tenant_id" | "created_at" | "-created_at" | "updated_at" | "-updated_at" | "expires_at" | "-expires_at";
  /** Fields `where` may filter on, with the type of their values. */
  readonly filter: {
    readonly _id: string;
    readonly tenant_id: string;
    readonly created_at: string | Date;
    readonly updated_at: string | Date;
    readonly resource: string;
    readonly record_id: string;
    readonly expires_at: string | Date;
  };
}

/** Types of `orders` for the resource client. */
export interface OrdersTypes {
  readonly record: OrdersRecord;
  readonly create: OrdersCreate;
  readonly update: OrdersUpdate;
  /** Names `fields` may select. */
  readonly field: "_id" | "tenant_id" | "created_at" | "updated_at" | "product_id" | "user_id" | "start_time" | "end_time" | "status" | "total_amount" | "currency" | "quantity" | "lines" | "expires_at" | "booking_id" | "paid_at";
  /** Keys `sort` accepts (`-` for descending). */
  readonly sortKey: "_id" | "-_id" | "tenant_id" | "-tenant_id" | "created_at" | "-created_at" | "updated_at" | "-updated_at" | "product_id" | "-product_id" | "start_time" | "-start_time" | "end_time" | "-end_time" | "status" | "-status" | "total_amount" | "-total_amount" | "expires_at" | "-expires_at" | "paid_at" | "-paid_at";
  /** Fields `where` may filter on, with the type of their values. */
  readonly filter: {
    readonly _id: string;
    readonly tenant_id: string;
    readonly created_at: string | Date;
    readonly updated_at: string | Date;
    readonly product_id: string;
    readonly user_id: string;
    readonly start_time: string | Date;
    readonly end_time: string | Date;
    readonly status: string;
    readonly total_amount: number;
    readonly currency: string;
    readonly quantity: number;
    readonly expires_at: string | Date;
    readonly booking_id: string;
    readonly paid_at: string | Date;
  };
}

/** Types of `products` for the resource client. */
export interface ProductsTypes {
  readonly record: ProductsRecord;
  readonly create: ProductsCreate;
  readonly update: ProductsUpdate;
  /** Names `fields` may select. */
  readonly field: "_id" | "tenant_id" | "created_at" | "updated_at" | "name" | "description" | "address" | "city" | "zip_code" | "country" | "total_items" | "status" | "time_zone" | "price" | "price_unit" | "currency" | "is_published";
  /** Keys `sort` accepts (`-` for descending). */
  readonly sortKey: "_id" | "-_id" | "tenant_id" | "-tenant_id" | "created_at" | "-created_at" | "updated_at" | "-updated_at" | "name" | "-name" | "city" | "-city" | "zip_code" | "-zip_code" | "total_items" | "-total_items" | "status" | "-status" | "price" | "-price" | "is_published" | "-is_published";
  /** Fields `where` may filter on, with the type of their values. */
  readonly filter: {
    readonly _id: string;
    readonly tenant_id: string;
    readonly created_at: string | Date;
    readonly updated_at: string | Date;
    readonly name: string;
    readonly address: string;
    readonly city: string;
    readonly zip_code: string;
    readonly country: string;
    readonly total_items: number;
    readonly status: string;
    readonly time_zone: string;
    readonly price: number;
    readonly price_unit: string;
    readonly currency: string;
    readonly is_published: boolean;
  };
}

/** Types of `retention-policies` for the resource client. */
export interface RetentionPoliciesTypes {
  readonly record: RetentionPoliciesRecord;
  readonly create: RetentionPoliciesCreate;
  readonly update: RetentionPoliciesUpdate;
  /** Names `fields` may select. */
  readonly field: "_id" | "tenant_id" | "created_at" | "updated_at" | "category" | "retention_days" | "action";
  /** Keys `sort` accepts (`-` for descending). */
  readonly sortKey: "_id" | "-_id" | "tenant_id" | "-tenant_id" | "created_at" | "-created_at" | "updated_at" | "-updated_at" | "category" | "-category" | "retention_days" | "-retention_days";
  /** Fields `where` may filter on, with the type of their values. */
  readonly filter: {
    readonly _id: string;
    readonly tenant_id: string;
    readonly created_at: string | Date;
    readonly updated_at: string | Date;
    readonly category: string;
    readonly retention_days: number;
    readonly action: string;
  };
}

/** Types of `service-charges` for the resource client. */
export interface ServiceChargesTypes {
  readonly record: ServiceChargesRecord;
  readonly create: ServiceChargesCreate;
  readonly update: ServiceChargesUpdate;
  /** Names `fields` may select. */
  readonly field: "_id" | "tenant_id" | "created_at" | "updated_at" | "product_id" | "name" | "amount" | "currency" | "basis";
  /** Keys `sort` accepts (`-` for descending). */
  readonly sortKey: "_id" | "-_id" | "tenant_id" | "-tenant_id" | "created_at" | "-created_at" | "updated_at" | "-updated_at" | "product_id" | "-product_id" | "name" | "-name" | "amount" | "-amount";
  /** Fields `where` may filter on, with the type of their values. */
  readonly filter: {
    readonly _id: string;
    readonly tenant_id: string;
    readonly created_at: string | Date;
    readonly updated_at: string | Date;
    readonly product_id: string;
    readonly name: string;
    readonly amount: number;
    readonly currency: string;
    readonly basis: string;
  };
}

/** Types of `subscriptions` for the resource client. */
export interface SubscriptionsTypes {
  readonly record: SubscriptionsRecord;
  readonly create: SubscriptionsCreate;
  readonly update: SubscriptionsUpdate;
  /** Names `fields` may select. */
  readonly field: "_id" | "tenant_id" | "created_at" | "updated_at" | "product_id" | "user_id" | "plan" | "status" | "valid_until";
  /** Keys `sort` accepts (`-` for descending). */
  readonly sortKey: "_id" | "-_id" | "tenant_id" | "-tenant_id" | "created_at" | "-created_at" | "updated_at" | "-updated_at" | "product_id" | "-product_id" | "plan" | "-plan" | "status" | "-status" | "valid_until" | "-valid_until";
  /** Fields `where` may filter on, with the type of their values. */
  readonly filter: {
    readonly _id: string;
    readonly tenant_id: string;
    readonly created_at: string | Date;
    readonly updated_at: string | Date;
    readonly product_id: string;
    readonly user_id: string;
    readonly plan: string;
    readonly status: string;
    readonly valid_until: string | Date;
  };
}

/** Types of `tenants` for the resource client. */
export interface TenantsTypes {
  readonly record: TenantsRecord;
  readonly create: TenantsCreate;
  readonly update: TenantsUpdate;
  /** Names `fields` may select. */
  readonly field: "_id" | "tenant_id" | "created_at" | "updated_at" | "name" | "level" | "parent_id" | "currency" | "contact_email";
  /** Keys `sort` accepts (`-` for descending). */
  readonly sortKey: "_id" | "-_id" | "tenant_id" | "-tenant_id" | "created_at" | "-created_at" | "updated_at" | "-updated_at" | "name" | "-name" | "level" | "-level";
  /** Fields `where` may filter on, with the type of their values. */
  readonly filter: {
    readonly _id: string;
    readonly tenant_id: string;
    readonly created_at: string | Date;
    readonly updated_at: string | Date;
    readonly name: string;
    readonly level: string;
    readonly parent_id: string;
    readonly currency: string;
  };
}

/** Types of `users` for the resource client. */
export interface UsersTypes {
  readonly record: UsersRecord;
  readonly create: UsersCreate;
  readonly update: UsersUpdate;
  /** Names `fields` may select. */
  readonly field: "_id" | "tenant_id" | "created_at" | "updated_at" | "email" | "phone" | "first_name" | "last_name" | "date_of_birth" | "locale" | "role" | "status" | "external_id" | "totp_enabled" | "erased_at";
  /** Keys `sort` accepts (`-` for descending). */
  readonly sortKey: "_id" | "-_id" | "tenant_id" | "-tenant_id" | "created_at" | "-created_at" | "updated_at" | "-updated_at" | "role" | "-role" | "status" | "-status";
  /** Fields `where` may filter on, with the type of their values. */
  readonly filter: {
    readonly _id: string;
    readonly tenant_id: string;
    readonly created_at: string | Date;
    readonly updated_at: string | Date;
    readonly locale: string;
    readonly role: string;
    readonly status: string;
    readonly external_id: string;
    readonly totp_enabled: boolean;
    readonly erased_at: string | Date;
  };
}

/** Types of `webhooks` for the resource client. */
export interface WebhooksTypes {
  readonly record: WebhooksRecord;
  readonly create: WebhooksCreate;
  readonly update: WebhooksUpdate;
  /** Names `fields` may select. */
  readonly field: "_id" | "tenant_id" | "created_at" | "updated_at" | "direction" | "url" | "events" | "scheme" | "ip_allowlist" | "description" | "active";
  /** Keys `sort` accepts (`-` for descending). */
  readonly sortKey: "_id" | "-_id" | "tenant_id" | "-tenant_id" | "created_at" | "-created_at" | "updated_at" | "-updated_at";
  /** Fields `where` may filter on, with the type of their values. */
  readonly filter: {
    readonly _id: string;
    readonly tenant_id: string;
    readonly created_at: string | Date;
    readonly updated_at: string | Date;
    readonly direction: string;
    readonly url: string;
    readonly active: boolean;
  };
}

/** An iCalendar feed of another channel whose events block the product's units. */
export interface CalendarImportsRecord {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at: string;
  /** The product (from the path). */
  readonly product_id?: string;
  /** The channel's feed URL (http or https; fetched through the outgoing address guard). */
  url: string;
  /** What the channel is called (Airbnb, Booking.com). */
  name?: string | null;
  /** Units each event blocks. */
  units: number;
  /** `failing` after a failed sync; `stale` with no success for 3 × `CALENDAR_SYNC_SECONDS`. */
  readonly status?: "ok" | "failing" | "stale";
  /** The last sync, failed or not. */
  readonly last_synced_at?: string | null;
  /** The last sync that applied the feed. */
  readonly last_success_at?: string | null;
  /** Why the last sync failed; null after a success. */
  readonly last_error?: string | null;
  /** Blocks the feed holds now. */
  readonly events?: number;
  /** Malformed events the last sync skipped. */
  readonly skipped?: number;
  /** Events that did not fit the free units, not applied. */
  readonly conflicts?: Array<{
    /** The event (UID, plus RECURRENCE-ID for an occurrence). */
    external_uid: string;
    start: string;
    end: string;
    /** Units free throughout the event when it was refused. */
    available: number;
  }>;
  /** When the import turned stale (announced once by `calendars.stale`); null while syncs succeed. */
  readonly stale_since?: string | null;
}

/** Create body of calendar-imports. Server-owned fields are refused (400). */
export interface CalendarImportsCreate {
  /** The channel's feed URL (http or https; fetched through the outgoing address guard). */
  url: string;
  /** What the channel is called (Airbnb, Booking.com). */
  name?: string | null;
  /** Units each event blocks. */
  units?: number;
}

/** Types of `calendar_imports` for the resource client. */
export interface CalendarImportsTypes {
  readonly record: CalendarImportsRecord;
  readonly create: CalendarImportsCreate;
  readonly update: never;
  /** Names `fields` may select. */
  readonly field: "_id" | "tenant_id" | "created_at" | "updated_at" | "product_id" | "url" | "name" | "units" | "status" | "last_synced_at" | "last_success_at" | "last_error" | "events" | "skipped" | "conflicts" | "stale_since";
  /** Keys `sort` accepts (`-` for descending). */
  readonly sortKey: "_id" | "-_id" | "tenant_id" | "-tenant_id" | "created_at" | "-created_at" | "updated_at" | "-updated_at" | "last_synced_at" | "-last_synced_at";
  /** Fields `where` may filter on, with the type of their values. */
  readonly filter: {
    readonly _id: string;
    readonly tenant_id: string;
    readonly created_at: string | Date;
    readonly updated_at: string | Date;
    readonly product_id: string;
    readonly name: string;
    readonly status: string;
    readonly last_synced_at: string | Date;
    readonly last_success_at: string | Date;
  };
}

/** A price and stay restrictions for a range of local dates of a product. */
export interface ProductRatesRecord {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record. */
  readonly tenant_id: string;
  /** Creation time (ISO 8601, UTC). Default sort key, newest first. */
  readonly created_at: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at: string;
  /** The product (from the path). */
  readonly product_id?: string;
  /** First local date (`YYYY-MM-DD`, the product's time zone). */
  from: string;
  /** The local date after the last one (exclusive), after `from` and at most 2 years later. */
  to: string;
  /** Price of one unit per `price_unit` on these dates; null: the product's price applies (the restrictions still do). */
  price?: number | null;
  /** Fewest periods of a stay arriving on these dates. */
  min_stay?: number | null;
  /** Most periods of a stay arriving on these dates. */
  max_stay?: number | null;
  /** None of these dates can be sold. */
  closed: boolean;
  /** No stay may start on these dates. */
  closed_to_arrival: boolean;
}

/** Create body of product-rates. Server-owned fields are refused (400). */
export interface ProductRatesCreate {
  /** First local date (`YYYY-MM-DD`, the product's time zone). */
  from: string;
  /** The local date after the last one (exclusive), after `from` and at most 2 years later. */
  to: string;
  /** Price of one unit per `price_unit` on these dates; null: the product's price applies (the restrictions still do). */
  price?: number | null;
  /** Fewest periods of a stay arriving on these dates. */
  min_stay?: number | null;
  /** Most periods of a stay arriving on these dates. */
  max_stay?: number | null;
  /** None of these dates can be sold. */
  closed?: boolean;
  /** No stay may start on these dates. */
  closed_to_arrival?: boolean;
}

/** Update body of product-rates: only the fields to change. Server-owned, create-only and write-only fields are refused (400). */
export interface ProductRatesUpdate {
  /** First local date (`YYYY-MM-DD`, the product's time zone). */
  from?: string;
  /** The local date after the last one (exclusive), after `from` and at most 2 years later. */
  to?: string;
  /** Price of one unit per `price_unit` on these dates; null: the product's price applies (the restrictions still do). */
  price?: number | null;
  /** Fewest periods of a stay arriving on these dates. */
  min_stay?: number | null;
  /** Most periods of a stay arriving on these dates. */
  max_stay?: number | null;
  /** None of these dates can be sold. */
  closed?: boolean;
  /** No stay may start on these dates. */
  closed_to_arrival?: boolean;
}

/** Types of `product_rates` for the resource client. */
export interface ProductRatesTypes {
  readonly record: ProductRatesRecord;
  readonly create: ProductRatesCreate;
  readonly update: ProductRatesUpdate;
  /** Names `fields` may select. */
  readonly field: "_id" | "tenant_id" | "created_at" | "updated_at" | "product_id" | "from" | "to" | "price" | "min_stay" | "max_stay" | "closed" | "closed_to_arrival";
  /** Keys `sort` accepts (`-` for descending). */
  readonly sortKey: "_id" | "-_id" | "tenant_id" | "-tenant_id" | "created_at" | "-created_at" | "updated_at" | "-updated_at" | "from" | "-from" | "to" | "-to";
  /** Fields `where` may filter on, with the type of their values. */
  readonly filter: {
    readonly _id: string;
    readonly tenant_id: string;
    readonly created_at: string | Date;
    readonly updated_at: string | Date;
    readonly product_id: string;
    readonly from: string;
    readonly to: string;
  };
}

/** One client per resource, with the operations the resource has. */
export interface ResourceClients {
  /** `/v1/api-clients`: A machine-to-machine client authenticating with private_key_jwt. */
  readonly apiClients: ResourceApi<ApiClientsTypes, "list" | "get" | "create" | "update" | "updateWithRetry" | "delete">;
  /** `/v1/audit-logs`: Append-only trail of every change and security event. */
  readonly auditLogs: ResourceApi<AuditLogsTypes, "list" | "get">;
  /** `/v1/bookings`: A reservation of a product for a time range. */
  readonly bookings: ResourceApi<BookingsTypes, "list" | "get" | "create" | "update" | "updateWithRetry" | "delete">;
  /** `/v1/consents`: A user's consent decision for one processing purpose. Append-only evidence: a withdrawal is a new record with `granted: false`; the newest record per purpose is the current decision. */
  readonly consents: ResourceApi<ConsentsTypes, "list" | "get" | "create">;
  /** `/v1/legal-holds`: Suspends erasure and retention purges of one record. */
  readonly legalHolds: ResourceApi<LegalHoldsTypes, "list" | "get" | "create" | "update" | "updateWithRetry" | "delete">;
  /** `/v1/orders`: A purchase of a product for a time range. */
  readonly orders: ResourceApi<OrdersTypes, "list" | "get" | "create" | "update" | "updateWithRetry" | "delete">;
  /** `/v1/products`: A bookable product: a place or item with a number of units. */
  readonly products: ResourceApi<ProductsTypes, "list" | "get" | "create" | "update" | "updateWithRetry" | "delete">;
  /** `/v1/retention-policies`: How long records of a category are kept before purge or anonymisation. */
  readonly retentionPolicies: ResourceApi<RetentionPoliciesTypes, "list" | "get" | "create" | "update" | "updateWithRetry" | "delete">;
  /** `/v1/service-charges`: A fee attached to a product (cleaning, service, tax). */
  readonly serviceCharges: ResourceApi<ServiceChargesTypes, "list" | "get" | "create" | "update" | "updateWithRetry" | "delete">;
  /** `/v1/subscriptions`: A recurring entitlement to a product. */
  readonly subscriptions: ResourceApi<SubscriptionsTypes, "list" | "get" | "create" | "update" | "updateWithRetry" | "delete">;
  /** `/v1/tenants`: A node of the tenant hierarchy below `system`: partner, parent_tenant or tenant. */
  readonly tenants: ResourceApi<TenantsTypes, "list" | "get" | "create" | "update" | "updateWithRetry" | "delete">;
  /** `/v1/users`: An end user (guest, staff) of a tenant. */
  readonly users: ResourceApi<UsersTypes, "list" | "get" | "create" | "update" | "updateWithRetry" | "delete">;
  /** `/v1/webhooks`: A webhook: outgoing (the service posts its events to `url`) or incoming (a sender such as Stripe posts to `/v1/webhooks/{id}/receive`). */
  readonly webhooks: ResourceApi<WebhooksTypes, "list" | "get" | "create" | "update" | "updateWithRetry" | "delete">;
}

/** Property name, path segment and methods of every resource client. */
export const resourceCatalogue = [
  { property: "apiClients", path: "api-clients", methods: ["list", "get", "create", "update", "updateWithRetry", "delete"] },
  { property: "auditLogs", path: "audit-logs", methods: ["list", "get"] },
  { property: "bookings", path: "bookings", methods: ["list", "get", "create", "update", "updateWithRetry", "delete"] },
  { property: "consents", path: "consents", methods: ["list", "get", "create"] },
  { property: "legalHolds", path: "legal-holds", methods: ["list", "get", "create", "update", "updateWithRetry", "delete"] },
  { property: "orders", path: "orders", methods: ["list", "get", "create", "update", "updateWithRetry", "delete"] },
  { property: "products", path: "products", methods: ["list", "get", "create", "update", "updateWithRetry", "delete"] },
  { property: "retentionPolicies", path: "retention-policies", methods: ["list", "get", "create", "update", "updateWithRetry", "delete"] },
  { property: "serviceCharges", path: "service-charges", methods: ["list", "get", "create", "update", "updateWithRetry", "delete"] },
  { property: "subscriptions", path: "subscriptions", methods: ["list", "get", "create", "update", "updateWithRetry", "delete"] },
  { property: "tenants", path: "tenants", methods: ["list", "get", "create", "update", "updateWithRetry", "delete"] },
  { property: "users", path: "users", methods: ["list", "get", "create", "update", "updateWithRetry", "delete"] },
  { property: "webhooks", path: "webhooks", methods: ["list", "get", "create", "update", "updateWithRetry", "delete"] },
] as const;
