/**
 * The vocabulary of the resource registry: the single source of truth from which
 * validation, tables, capabilities, filters, field access and docs are derived.
 */

/** Storage and wire type of a field. */
export type FieldType =
  | 'string'
  | 'integer'
  | 'number'
  | 'boolean'
  | 'timestamp'
  /** Record identifier of another resource (see {@link FieldDef.references}). */
  | 'reference'
  /** JSON array of strings. */
  | 'string_list'
  /** Free JSON object (never filterable). */
  | 'object';

/** GDPR classification of a field's content. */
export type GdprClass =
  /** Not personal data (product names, amounts). */
  | 'none'
  /** Pseudonymous identifiers and technical data linkable to a person (ids, IPs). */
  | 'pseudonymous'
  /** Personal data (GDPR Art. 4(1)): names, contact details. */
  | 'personal'
  /** Special category or high-risk data (Art. 9, birth dates, free text about a person). */
  | 'special';

/** What erasure by depersonalisation does to a field. */
export type ErasureAction = 'keep' | 'null' | 'redact';

/** The operators a `where` filter may use on a field. */
export type FieldOperator = '$eq' | '$ne' | '$gt' | '$gte' | '$lt' | '$lte' | '$in' | '$nin' | '$exists' | '$regex';

export interface FieldDef {
  readonly type: FieldType;
  readonly description: string;
  /** Must be present in a create body. */
  readonly required?: boolean;
  /** Set only by the service; a request body carrying it is refused (400). */
  readonly serverOwned?: boolean;
  /** Accepted on create but not on update. */
  readonly immutable?: boolean;
  /** Accepted in create bodies, never stored in the record nor returned (e.g. a public key handed to a sub-store). */
  readonly writeOnly?: boolean;
  /** Computed on read by the resource's hooks; not a column. */
  readonly computed?: boolean;
  /** Value may be `null` in a body (clears the field). */
  readonly nullable?: boolean;
  /** Default applied on create when the field is absent. */
  readonly default?: string | number | boolean | readonly string[];
  readonly enum?: readonly string[];
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  /** `string_list` only: maximum number of entries. */
  readonly maxItems?: number;
  /** Extra format check for strings. */
  readonly format?: 'email' | 'uri' | 'currency' | 'cidr' | 'capability' | 'pem' | 'phone' | 'date' | 'time-zone';
  /** Usable in `where` and query-parameter filters (operators follow the type). */
  readonly filterable?: boolean;
  readonly sortable?: boolean;
  /** Parent resource; a live child blocks the parent's deletion (cascade deny). */
  readonly references?: ResourceName;
  readonly gdpr: GdprClass;
  /** Sensitive fields need `<resource>:read:<field>` / `<resource>:write:<field>`. */
  readonly sensitive?: boolean;
  /**
   * `object` fields only: the value holds fields of a record of the resource named by this
   * sibling field (an audit entry's `old_values` of the resource in `resource`). Reading it
   * hides that resource's sensitive fields like a read of the record would
   * (`hideFields`, `src/derive/field-access.ts`).
   */
  readonly valuesOf?: string;
  /** `object` fields only: the JSON Schema of the value when it is not a free object (an order's `lines`, an array). */
  readonly shape?: Readonly<Record<string, unknown>>;
  /** What erasure does to this field; the default derives from `gdpr` (`src/derive/erasure.ts`). */
  readonly erasure?: ErasureAction;
}

/** The collection operations a resource can expose. */
export type Operation = 'list' | 'read' | 'create' | 'update' | 'delete' | 'export';

/** How a resource's rows are placed in the tenant hierarchy. */
export type Tenancy =
  /** Owned by one tenant node (`tenant_id`). */
  | 'owned'
  /** The row is itself a node of the hierarchy (the `tenants` resource). */
  | 'node';

export type ResourceName =
  | 'bookings'
  | 'products'
  | 'orders'
  | 'service-charges'
  | 'subscriptions'
  | 'api-clients'
  | 'users'
  | 'tenants'
  | 'webhooks'
  | 'consents'
  | 'legal-holds'
  | 'retention-policies'
  | 'audit-logs'
  /** A sub-collection (`/v1/webhooks/{id}/deliveries`): described like a resource for its list query language, not one of the 13. */
  | 'webhook-deliveries'
  /** The attempts of one delivery (`/v1/webhooks/{id}/deliveries/{delivery_id}/attempts`), a sub-collection likewise. */
  | 'webhook-delivery-attempts'
  /** The rates of a product (`/v1/products/{id}/rates`), a sub-collection likewise. */
  | 'product-rates'
  /** The calendar feeds a product imports (`/v1/products/{id}/calendar-imports`), a sub-collection likewise. */
  | 'calendar-imports';

export interface ResourceSpec {
  /** Path segment under `/v1` and capability prefix. */
  readonly name: ResourceName;
  /** SQL table name. */
  readonly table: string;
  readonly description: string;
  readonly tenancy: Tenancy;
  readonly operations: readonly Operation[];
  /**
   * Sub-operations reserved ahead of their action (each has the capability
   * `<resource>:<name>`). A declared action (`src/actions`) adds its own; list one here only
   * while its action does not exist yet.
   */
  readonly subOperations?: readonly string[];
  /** Records may belong to the root node `system` itself (stored as `tenant_id` null). */
  readonly systemOwned?: boolean;
  /** Rows are soft-deleted (`deleted_at`), the default; append-only resources set false. */
  readonly softDelete?: boolean;
  /**
   * Composite indexes for common filter-and-sort combinations, e.g. `['status', 'start_time']`.
   * Each is led by `tenant_id`, ends with `_id` (the sort tie-breaker) and covers live rows.
   */
  readonly indexes?: readonly (readonly string[])[];
  /**
   * Indexes not led by `tenant_id`, by name, for reads that must see every tenant (a
   * product's capacity is held by bookings of any tenant): columns in order, live rows only.
   */
  readonly crossTenantIndexes?: Readonly<Record<string, readonly string[]>>;
  /** Values shown once, in the create answer only, never stored in the record (a webhook's secret): name → description. */
  readonly shownOnCreate?: Readonly<Record<string, string>>;
  /** Resource-specific fields; the common ones are added by `defineResource`. */
  readonly fields: Readonly<Record<string, FieldDef>>;
}

/** A resource as the rest of the code sees it: spec plus the common fields. */
export interface ResourceDef extends ResourceSpec {
  readonly softDelete: boolean;
  readonly subOperations: readonly string[];
  /** All API-visible fields, common ones first, in a stable order. */
  readonly fields: Readonly<Record<string, FieldDef>>;
  /** Field names in declaration order (common first). */
  readonly fieldNames: readonly string[];
}

/**
 * What a column of each field type holds once read, on both databases: timestamps come back
 * as ISO text and counts as numbers (`db/postgres.ts` type parsers); SQLite stores booleans
 * as 0/1 and JSON as text, PostgreSQL as `boolean` and parsed `jsonb`.
 */
export interface StoredValue {
  string: string;
  reference: string;
  timestamp: string;
  integer: number;
  number: number;
  boolean: boolean | number;
  string_list: unknown;
  object: unknown;
}

/** A field's column may hold null unless it is required or defaulted and not nullable. */
type StoredNull<F> = F extends { readonly nullable: true } ? null : F extends { readonly required: true } | { readonly default: unknown } ? never : null;

/** A stored string field with an `enum` holds one of its values. */
type StoredType<F extends FieldDef> = F extends { readonly enum: readonly (infer E)[] } ? E : StoredValue[F['type']];

/** The bookkeeping columns every resource row carries besides its fields (a tenant node also its `path`). */
export type CommonColumns = {
  _id: string;
  tenant_id: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  etag: string;
};

/**
 * A resource's row as Kysely reads and writes it, derived from its declared fields: computed
 * and write-only fields have no column. A misspelt column name then fails `tsc`.
 */
export type RowOf<Fields extends Readonly<Record<string, FieldDef>>> = CommonColumns & {
  -readonly [K in keyof Fields as Fields[K] extends { readonly computed: true } | { readonly writeOnly: true } ? never : K]: StoredType<Fields[K]> | StoredNull<Fields[K]>;
};

/** Never present at run time: carries a resource's row type from its declaration to its queries. */
declare const storedRow: unique symbol;

/** The row type a {@link TypedResourceDef} carries. */
export type StoredRow<R> = R extends TypedResourceDef<string, infer Row> ? Row : never;

/** A resource whose table and row type are known to the compiler (`defineResource` returns one). */
export interface TypedResourceDef<Table extends string = string, Row = Readonly<Record<string, unknown>>> extends ResourceDef {
  readonly table: Table;
  readonly [storedRow]?: Row;
}
