import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';
import { createFrozenTable } from '../migration-kit.js';
import type { FrozenColumn, FrozenTable } from '../migration-kit.js';

/** Columns every resource table starts with. */
const common: readonly FrozenColumn[] = [
  ['_id', 'string'],
  ['tenant_id', 'string'],
  ['created_at', 'timestamp'],
  ['updated_at', 'timestamp'],
];

/** Tenant indexes every resource table starts with. */
const commonIndexes = ['created_at', 'updated_at'];

/** The 13 resource tables at schema version 1, frozen (later changes are migrations of their own). */
export const version1Tables: readonly FrozenTable[] = [
  {
    table: 'tenants',
    softDelete: true,
    path: true,
    columns: [...common, ['name', 'string'], ['level', 'string'], ['parent_id', 'reference'], ['currency', 'string'], ['contact_email', 'string']],
    tenantIndexes: [...commonIndexes, 'name', 'level', 'parent_id'],
  },
  {
    table: 'products',
    softDelete: true,
    path: false,
    columns: [
      ...common,
      ['name', 'string'],
      ['description', 'string'],
      ['address', 'string'],
      ['city', 'string'],
      ['zip_code', 'string'],
      ['country', 'string'],
      ['total_items', 'integer'],
      ['status', 'string'],
      ['is_published', 'boolean'],
    ],
    tenantIndexes: [...commonIndexes, 'name', 'city', 'zip_code', 'total_items', 'status', 'is_published'],
  },
  {
    table: 'users',
    softDelete: true,
    path: false,
    columns: [
      ...common,
      ['email', 'string'],
      ['phone', 'string'],
      ['first_name', 'string'],
      ['last_name', 'string'],
      ['date_of_birth', 'string'],
      ['locale', 'string'],
      ['role', 'string'],
      ['status', 'string'],
      ['external_id', 'string'],
      ['totp_enabled', 'boolean'],
      ['erased_at', 'timestamp'],
    ],
    tenantIndexes: [...commonIndexes, 'role', 'status'],
  },
  {
    table: 'bookings',
    softDelete: true,
    path: false,
    columns: [
      ...common,
      ['product_id', 'reference'],
      ['user_id', 'reference'],
      ['start_time', 'timestamp'],
      ['end_time', 'timestamp'],
      ['status', 'string'],
      ['quantity', 'integer'],
      ['reference', 'string'],
      ['notes', 'string'],
    ],
    tenantIndexes: [...commonIndexes, 'product_id', 'user_id', 'start_time', 'end_time', 'status', 'quantity'],
  },
  {
    table: 'orders',
    softDelete: true,
    path: false,
    columns: [
      ...common,
      ['product_id', 'reference'],
      ['user_id', 'reference'],
      ['start_time', 'timestamp'],
      ['end_time', 'timestamp'],
      ['status', 'string'],
      ['total_amount', 'number'],
      ['currency', 'string'],
    ],
    tenantIndexes: [...commonIndexes, 'product_id', 'user_id', 'start_time', 'end_time', 'status', 'total_amount'],
  },
  {
    table: 'service_charges',
    softDelete: true,
    path: false,
    columns: [...common, ['product_id', 'reference'], ['name', 'string'], ['amount', 'number'], ['currency', 'string']],
    tenantIndexes: [...commonIndexes, 'product_id', 'name', 'amount'],
  },
  {
    table: 'subscriptions',
    softDelete: true,
    path: false,
    columns: [...common, ['product_id', 'reference'], ['user_id', 'reference'], ['plan', 'string'], ['status', 'string'], ['valid_until', 'timestamp']],
    tenantIndexes: [...commonIndexes, 'product_id', 'user_id', 'plan', 'status', 'valid_until'],
  },
  {
    table: 'api_clients',
    softDelete: true,
    path: false,
    columns: [...common, ['client_id', 'string'], ['name', 'string'], ['capabilities', 'string_list'], ['ip_allowlist', 'string_list'], ['disabled', 'boolean'], ['level', 'string']],
    tenantIndexes: [...commonIndexes, 'name'],
  },
  {
    table: 'webhooks',
    softDelete: true,
    path: false,
    columns: [...common, ['url', 'string'], ['events', 'string_list'], ['description', 'string'], ['active', 'boolean']],
    tenantIndexes: commonIndexes,
  },
  {
    table: 'consents',
    softDelete: true,
    path: false,
    columns: [...common, ['user_id', 'reference'], ['purpose', 'string'], ['granted', 'boolean'], ['source', 'string'], ['expires_at', 'timestamp']],
    tenantIndexes: [...commonIndexes, 'user_id', 'purpose', 'expires_at'],
  },
  {
    table: 'legal_holds',
    softDelete: true,
    path: false,
    columns: [...common, ['resource', 'string'], ['record_id', 'string'], ['reason', 'string'], ['expires_at', 'timestamp']],
    tenantIndexes: [...commonIndexes, 'expires_at'],
  },
  {
    table: 'retention_policies',
    softDelete: true,
    path: false,
    columns: [...common, ['category', 'string'], ['retention_days', 'integer'], ['action', 'string']],
    tenantIndexes: [...commonIndexes, 'category', 'retention_days'],
  },
  {
    table: 'audit_logs',
    softDelete: false,
    path: false,
    columns: [
      ...common,
      ['category', 'string'],
      ['actor_type', 'string'],
      ['actor_id', 'string'],
      ['client_ip', 'string'],
      ['request_id', 'string'],
      ['action', 'string'],
      ['resource', 'string'],
      ['record_id', 'string'],
      ['old_values', 'object'],
      ['new_values', 'object'],
    ],
    tenantIndexes: [...commonIndexes, 'category', 'actor_type', 'actor_id', 'action', 'resource'],
  },
];

/** The 13 resource tables and their tenant indexes, as the service first shipped them. */
export function resourcesMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Db) {
      for (const table of version1Tables) await createFrozenTable(db, dialect, table);
    },
  };
}
