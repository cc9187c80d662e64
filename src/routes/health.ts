import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/dialect.js';
import { migrationsComplete } from '../db/migrate.js';

const healthType = 'application/health+json';

/**
 * `/health`: the process is alive. `/ready`: the database answers and every migration is
 * applied; 503 otherwise (and while shutting down), so load balancers stop sending traffic.
 */
export function healthRoutes(database: Database, state: { shuttingDown: boolean }) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get('/health', { config: { public: true } }, async (_request, reply) => {
      return reply.header('content-type', healthType).header('cache-control', 'no-store').send({ status: 'pass' });
    });
    app.get('/ready', { config: { public: true } }, async (request, reply) => {
      const checks: Record<string, { status: 'pass' | 'fail'; output?: string }[]> = {};
      let ready = !state.shuttingDown;
      try {
        await database.ping();
        const migrated = await migrationsComplete(database);
        checks['database:connection'] = [{ status: 'pass' }];
        checks['database:migrations'] = [migrated ? { status: 'pass' } : { status: 'fail', output: 'migrations pending' }];
        ready &&= migrated;
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        checks['database:connection'] = [{ status: 'fail', output: 'database unreachable' }];
        ready = false;
      }
      if (state.shuttingDown) checks['process:shutdown'] = [{ status: 'fail', output: 'shutting down' }];
      return reply
        .code(ready ? 200 : 503)
        .header('content-type', healthType)
        .header('cache-control', 'no-store')
        .send({ status: ready ? 'pass' : 'fail', checks });
    });
  };
}
