/**
 * The data every scenario needs, created before the service starts with the operator CLI's
 * services (tenants, the client) and the resource service (products), on the same storage
 * the service will open.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOperatorServices } from '../cli/operator-services.js';
import type { Config } from '../src/config/config.js';
import type { Database } from '../src/db/dialect.js';
import { getResource } from '../src/registry/index.js';
import { asSystem } from '../src/core/principal.js';
import type { RequestContext } from '../src/core/request-context.js';
import { es256Key } from './jws.js';
import type { Es256Key } from './jws.js';

export const tenantCount = 10;

/** What the benchmark client may do: every call the scenarios make. */
export const benchCapabilities = ['products:list', 'products:read', 'products:create', 'products:update', 'bookings:list', 'audit-logs:list', 'audit-logs:export'];

export interface BenchClient {
  readonly clientId: string;
  readonly kid: string;
  readonly key: Es256Key;
}

export interface Fixtures {
  /** The tenant the client and all measured data live in. */
  readonly tenantId: string;
  /** The other tenants, which get a share of the bookings so indexes do real work. */
  readonly otherTenantIds: readonly string[];
  readonly client: BenchClient;
  /** The product `get-*` scenarios read. */
  readonly productId: string;
  /** Its JSON as the API returns it (the bare-fastify reference serves the same bytes). */
  readonly productJson: string;
  /** One product per connection for `update` (each connection chains its own ETags). */
  readonly updateProductIds: readonly string[];
  /** Products that seeded bookings point at, per tenant id. */
  readonly bookingProducts: ReadonlyMap<string, readonly string[]>;
}

export function productBody(index: number): Record<string, unknown> {
  return {
    name: `Bench room ${index}`,
    description: 'A quiet double room with a view of the courtyard, breakfast included.',
    address: `Musterstraße ${index + 1}`,
    city: 'Berlin',
    zip_code: '10115',
    country: 'DE',
    total_items: 10 + (index % 50),
  };
}

export async function createFixtures(config: Config, database: Database, options: { readonly connections: number; readonly workDir: string }): Promise<Fixtures> {
  const operator = await buildOperatorServices(config, database);
  const tenantIds: string[] = [];
  for (let i = 0; i < tenantCount; i += 1) {
    const tenant = await operator.createTenant({ name: `Bench tenant ${i}`, level: 'tenant', parent: undefined, currency: 'EUR' });
    tenantIds.push(String(tenant._id));
  }
  const [tenantId = '', ...otherTenantIds] = tenantIds;

  const key = es256Key();
  const keyFile = join(options.workDir, 'bench-client.pub');
  writeFileSync(keyFile, key.publicPem);
  // The CLI's result type keeps only `kid`; the record's other members are there too.
  const created: Record<string, unknown> = await operator.createClient({
    name: 'bench',
    tenant: tenantId,
    capabilities: benchCapabilities.join(' '),
    publicKeyFile: keyFile,
    kid: 'bench-es256',
    ipAllow: undefined,
  });
  const client: BenchClient = { clientId: String(created._id), kid: String(created.kid), key };

  const { resources, tenants: directory } = operator.services;
  const products = getResource('products');
  const contextFor = async (tenant: string): Promise<RequestContext> => {
    const scope = await directory.resolve(tenant);
    if (!scope) throw new Error(`tenant ${tenant} not found`);
    return { principal: { ...asSystem(), scope }, clientIp: null, requestId: null };
  };
  const main = await contextFor(tenantId);
  const createProduct = async (context: RequestContext, index: number) => String((await resources.create(context, products, productBody(index))).record._id);

  const productId = await createProduct(main, 0);
  const { record } = await resources.read(main, products, productId);
  const updateProductIds: string[] = [];
  for (let i = 0; i < options.connections; i += 1) updateProductIds.push(await createProduct(main, 1000 + i));
  const bookingProducts = new Map<string, string[]>();
  for (const tenant of tenantIds) {
    const context = tenant === tenantId ? main : await contextFor(tenant);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push(await createProduct(context, 2000 + i));
    bookingProducts.set(tenant, ids);
  }
  return { tenantId, otherTenantIds, client, productId, productJson: JSON.stringify(record), updateProductIds, bookingProducts };
}
