import { defineResource } from '../define-resource.js';

/**
 * The rates of a product, at `/v1/products/{id}/rates[/{rate_id}]`: a price and stay
 * restrictions for a range of the product's local dates (docs/selling.md "Rates"). Described
 * with the registry's vocabulary so bodies, answers, ETags and the audit trail work as on
 * every record; not one of the service's resources (its capabilities are the product's:
 * `products:read` to read, `products:update` to write).
 */
export const productRates = defineResource({
  name: 'product-rates',
  table: 'product_rates',
  description: 'A price and stay restrictions for a range of local dates of a product.',
  tenancy: 'owned',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  fields: {
    product_id: { type: 'string', description: 'The product (from the path).', serverOwned: true, filterable: true, gdpr: 'none' },
    from: { type: 'string', format: 'date', description: "First local date (`YYYY-MM-DD`, the product's time zone).", required: true, filterable: true, sortable: true, gdpr: 'none' },
    to: {
      type: 'string',
      format: 'date',
      description: 'The local date after the last one (exclusive), after `from` and at most 2 years later.',
      required: true,
      filterable: true,
      sortable: true,
      gdpr: 'none',
    },
    price: {
      type: 'number',
      description: "Price of one unit per `price_unit` on these dates; null: the product's price applies (the restrictions still do).",
      minimum: 0,
      maximum: 1_000_000_000,
      nullable: true,
      gdpr: 'none',
    },
    min_stay: { type: 'integer', description: 'Fewest periods of a stay arriving on these dates.', minimum: 1, maximum: 10_000, nullable: true, gdpr: 'none' },
    max_stay: { type: 'integer', description: 'Most periods of a stay arriving on these dates.', minimum: 1, maximum: 10_000, nullable: true, gdpr: 'none' },
    closed: { type: 'boolean', description: 'None of these dates can be sold.', default: false, gdpr: 'none' },
    closed_to_arrival: { type: 'boolean', description: 'No stay may start on these dates.', default: false, gdpr: 'none' },
  },
});
