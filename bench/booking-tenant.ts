/**
 * The tenant of the booking-core scenarios (`book-contended`, `availability-*`) and its own
 * client. A tenant of their own keeps their 100 000-odd bookings out of the measured
 * tenant of `list-filtered`, whose counts would otherwise change from one round to the next.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOperatorServices } from '../cli/operator-services.js';
import type { BenchClient } from './fixtures.js';
import type { BenchContext } from './harness.js';
import { es256Key } from './jws.js';
import { seedOnce, withStorage } from './seed-storage.js';

export interface BookingTenant {
  readonly tenantId: string;
  readonly client: BenchClient;
}

export const bookingCapabilities = ['products:list', 'products:read', 'bookings:create', 'bookings:read'];

/** Created once per benchmark run (every round sees the same tenant). */
export function bookingTenant(ctx: BenchContext): Promise<BookingTenant> {
  return seedOnce(ctx, 'booking-tenant', () =>
    withStorage(ctx.config, async (database) => {
      const operator = await buildOperatorServices(ctx.config, database);
      const tenant = await operator.createTenant({ name: 'Bench bookings', level: 'tenant', parent: undefined, currency: 'EUR' });
      const key = es256Key();
      const keyFile = join(ctx.config.dataDir, 'bench-bookings.pub');
      writeFileSync(keyFile, key.publicPem);
      const created: Record<string, unknown> = await operator.createClient({
        name: 'bench bookings',
        tenant: String(tenant._id),
        capabilities: bookingCapabilities.join(' '),
        publicKeyFile: keyFile,
        kid: 'bench-bookings',
        ipAllow: undefined,
      });
      return { tenantId: String(tenant._id), client: { clientId: String(created._id), kid: String(created.kid), key } };
    }),
  );
}
